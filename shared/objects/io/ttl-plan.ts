// The ttl rules' share of an objects pass: read the kinds they name (ttl-read.ts), decide on
// what is stored (core/ttl.ts) within the namespaces asked for, never in a protected one (the
// process's, kube-tidy's own, the cluster's: core/ttl.ts ALWAYS_PROTECTED), and give each
// expired Namespace what it holds. A kind that cannot be read is logged here, once a pass, and
// carried to the answer; the rules go on with the others.
import type { TtlRule } from '../../policy/ttl-schema.js';
import type { ObjectPlan } from '../core/model.js';
import { decideTtl, scopeOf, withHoldings } from '../core/ttl.js';
import type { ObjectsHandle } from '../handle.js';
import { holdingsOf, readTtl, readTtlOne, type ServedKind, type TtlOne, type TtlRead } from './ttl-read.js';

export interface TtlPlan {
  plan: ObjectPlan;
  served: ReadonlyMap<string, ServedKind>;
  unavailable: TtlRead['unavailable'];
  considered: number;
}

export async function planTtl(
  h: ObjectsHandle,
  rules: readonly TtlRule[],
  o: { origin: string; namespaces?: readonly string[]; readNamespace?: string; one?: TtlOne },
): Promise<TtlPlan> {
  // An event's object (or a due entry's): that object alone, by name.
  const read = o.one
    ? await readTtlOne(h.reader, o.one, h.discovery)
    : await readTtl(h.reader, rules, o.readNamespace === undefined ? {} : { namespace: o.readNamespace });
  if (read.unavailable.length)
    h.log.warn({ kinds: read.unavailable, origin: o.origin }, 'ttl: a rule names a kind that cannot be read here; its rules go on with the other kinds');
  const objects = read.objects.filter((x) => o.namespaces === undefined || o.namespaces.includes(scopeOf(x) ?? ''));
  const own = h.settings.ownNamespace;
  const guard = {
    protectedNamespaces: h.settings.protectedNamespaces,
    from: h.settings.protectedNamespacesFrom ?? 'PROTECTED_NAMESPACES',
    ...(own ? { own: { namespace: own, from: h.settings.ownNamespaceFrom ?? 'BRAKES_NAMESPACE' } } : {}),
  };
  const plan = decideTtl(rules, objects, guard, h.now());
  // A Namespace's deletion takes everything in it: its decision says how much.
  plan.decisions = await Promise.all(
    plan.decisions.map(async (d) => (d.kind === 'Namespace' && d.apiVersion === 'v1' ? withHoldings(d, await holdingsOf(h.reader, d.name)) : d)),
  );
  return { plan, served: read.served, unavailable: read.unavailable, considered: objects.length };
}

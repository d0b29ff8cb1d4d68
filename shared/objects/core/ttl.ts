// TTL on any kind (issue 47): the ttl rules, the objects of the kinds they name as stored, the
// namespaces kube-tidy never touches and `now` in; the same plan as the objects rules' out
// (model.ts ObjectPlan), so one pass, one writer, the brakes, the reports and the CloudEvents
// serve both. Each object is decided by the first rule whose kind, namespaces and labels match
// it: expired (a decision), waiting until its expiry (eligible), unreadable (kept, said, never
// guessed) or protected (kept, said). Pure.
import type { Namespaces } from '../../policy/common.js';
import { compileLabelSelector } from '../../policy/label-selector.js';
import type { GroupVersionKind, TtlRule } from '../../policy/ttl-schema.js';
import { expiryOfMeta, type TtlMeta } from '../../strategies/pod-ttl/index.js';
import type { ObjectDecision, ObjectId, ObjectPlan } from './model.js';

/** Never deleted, nor anything in them, whatever a label says: the cluster's own namespaces. */
export const ALWAYS_PROTECTED: readonly string[] = ['kube-system', 'kube-public', 'kube-node-lease', 'default'];

/** Kyverno's annotation beside its label: how the object's delete propagates. */
export const KYVERNO_PROPAGATION_ANNOTATION = 'cleanup.kyverno.io/propagation-policy';
const PROPAGATIONS = ['Background', 'Foreground', 'Orphan'] as const;

/** An object of a kind a ttl rule names, as stored: its kind, identity and metadata. */
export interface TtlObject extends TtlMeta {
  gvk: GroupVersionKind;
  /** Absent: a cluster-scoped object (a Namespace, a ClusterRole). */
  namespace?: string;
  name: string;
  uid: string;
  resourceVersion: string;
  /** A Pod's status.phase as stored: a running pod leaves through the Eviction API, never a DELETE (ttl-act.ts). */
  phase?: string;
}

/** The namespaces never touched beside ALWAYS_PROTECTED (the process's, kube-tidy's own), and where they were set. */
export interface TtlGuard {
  protectedNamespaces: readonly string[];
  from: string;
  /** kube-tidy's own namespace, and how the host knows it (BRAKES_NAMESPACE; the CLI's --brakes-namespace or the ledger it found). */
  own?: { namespace: string; from: string };
}

const isNamespace = (k: GroupVersionKind) => k.group === '' && k.kind === 'Namespace';
const isPod = (k: GroupVersionKind) => k.group === '' && k.kind === 'Pod';

/** The namespace a rule's `namespaces` and the protections judge: a namespaced object's, a Namespace's own name; none for other cluster-scoped kinds. */
export const scopeOf = (o: Pick<TtlObject, 'gvk' | 'namespace' | 'name'>): string | undefined => (isNamespace(o.gvk) ? o.name : o.namespace);

/** namespaces {include|exclude} as every rule reads them; a cluster-scoped object outside any namespace only when no include list narrows the rule. */
function inNamespaces(scope: string | undefined, n: Namespaces | undefined): boolean {
  if (scope === undefined) return !n?.include?.length;
  return n?.include?.length ? n.include.includes(scope) : !(n?.exclude ?? []).includes(scope);
}

const sameKind = (a: GroupVersionKind, b: GroupVersionKind) => a.group === b.group && a.version === b.version && a.kind === b.kind;

function idOf(o: TtlObject): ObjectId {
  const apiVersion = o.gvk.group ? `${o.gvk.group}/${o.gvk.version}` : o.gvk.version;
  return { kind: o.gvk.kind, apiVersion, namespace: scopeOf(o) ?? '', name: o.name, uid: o.uid, resourceVersion: o.resourceVersion };
}

/** Why `o` is never deleted whatever its TTL says; undefined: nothing protects it. */
function protectedBy(o: TtlObject, guard: TtlGuard): string | undefined {
  const scope = scopeOf(o);
  if (scope === undefined) return undefined;
  const by = ALWAYS_PROTECTED.includes(scope)
    ? 'always'
    : guard.own?.namespace === scope
      ? `kube-tidy's own, ${guard.own.from}`
      : guard.protectedNamespaces.includes(scope)
        ? guard.from
        : undefined;
  if (by === undefined) return undefined;
  return isNamespace(o.gvk) ? `a protected namespace (${by}): never deleted, whatever its TTL` : `in a protected namespace (${by})`;
}

/** The object's Kyverno annotation when it names a propagation, else the rule's. */
function propagationOf(o: TtlObject, rule: TtlRule): ObjectDecision['propagationPolicy'] {
  const said = o.annotations?.[KYVERNO_PROPAGATION_ANNOTATION];
  return PROPAGATIONS.find((p) => p === said) ?? rule.propagationPolicy;
}

export function decideTtl(rules: readonly TtlRule[], objects: readonly TtlObject[], guard: TtlGuard, now: number): ObjectPlan {
  const plan: ObjectPlan = { decisions: [], kept: [], eligible: [] };
  const compiled = rules.map((rule) => ({
    rule,
    labels: compileLabelSelector(rule.labelSelector),
    reads: {
      kyverno: rule.sources.includes('cleanup.kyverno.io/ttl'),
      janitorTtl: rule.sources.includes('janitor/ttl'),
      janitorExpires: rule.sources.includes('janitor/expires'),
      janitorLabels: true,
    },
  }));
  for (const o of objects) {
    const c = compiled.find((x) => x.rule.kinds.some((k) => sameKind(k, o.gvk)) && inNamespaces(scopeOf(o), x.rule.namespaces) && x.labels(o.labels));
    if (!c) continue;
    const expiry = expiryOfMeta(o, c.reads);
    if (expiry.kind === 'none') continue;
    const id = idOf(o);
    const rule = c.rule.name;
    if (expiry.kind === 'malformed') {
      plan.kept.push({ ...id, rule, reason: `unreadable TTL, kept (never guessed): ${expiry.reason}` });
      continue;
    }
    const shielded = protectedBy(o, guard);
    if (shielded) plan.kept.push({ ...id, rule, reason: shielded });
    else if (expiry.at > now) plan.eligible.push({ ...id, rule, at: expiry.at });
    else {
      const target = { apiVersion: id.apiVersion!, kind: id.kind, namespace: o.namespace ?? '', name: o.name, uid: o.uid };
      const reason = `${rule}: expired at ${new Date(expiry.at).toISOString()}, from ${expiry.source}`;
      plan.decisions.push({
        ...id,
        rule,
        mode: c.rule.mode,
        condition: 'expired',
        since: expiry.at,
        reason,
        target,
        propagationPolicy: propagationOf(o, c.rule),
        ...(isPod(o.gvk) ? { pod: { phase: o.phase ?? '', ...(o.annotations ? { annotations: o.annotations } : {}) } } : {}),
      });
    }
  }
  plan.decisions.sort((a, b) => a.since - b.since || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  plan.eligible.sort((a, b) => a.at - b.at);
  return plan;
}

/** What a Namespace held when it was decided, said in its decision: a namespace's deletion takes all of it. */
export interface NamespaceHoldings {
  pods: number;
  jobs: number;
  claims: number;
}

/** A Namespace's decision with what it holds in its reason; any other decision as it is. */
export function withHoldings(d: ObjectDecision, held: NamespaceHoldings | undefined): ObjectDecision {
  if (d.kind !== 'Namespace' || held === undefined) return d;
  return { ...d, reason: `${d.reason}; it holds ${held.pods} pods, ${held.jobs} Jobs and ${held.claims} PersistentVolumeClaims` };
}

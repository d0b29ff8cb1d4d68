// What the ttl rules read, from the API server: each kind a rule names, found by discovery (its
// plural, its scope, its verbs: a Kind's plural is not guessed), then listed to the end, in every
// namespace or in one. A kind the cluster does not serve, or one kube-tidy may not list, is
// named in `unavailable` with why, and the rules go on with the other kinds. A Namespace a
// rule may delete is read with what it holds (its pods, Jobs and claims, counted) so that its
// deletion says what it takes with it.
import type { Resource } from '../../kube/direct-paths.js';
import type { ObjectMeta } from '../../model/objects.js';
import { failureKindOf } from '../../kube/errors.js';
import { listEverything } from '../../kube/pager.js';
import { gvkName, type GroupVersionKind, type TtlRule } from '../../policy/ttl-schema.js';
import { KYVERNO_TTL_LABEL } from '../../strategies/pod-ttl/index.js';
import type { NamespaceHoldings, TtlObject } from '../core/ttl.js';
import type { ObjectsReader } from './read.js';
import { RESOURCES, readRaw } from './read.js';

/** Discovery's answers by group/version, kept for one read (a Map) or a while (discovery-cache.ts). */
export interface DiscoveryAnswers {
  has(gv: string): boolean;
  get(gv: string): Promise<unknown> | undefined;
  set(gv: string, answer: Promise<unknown>): unknown;
}

/** A kind as the cluster serves it: its resource and whether it lives in a namespace. */
export interface ServedKind {
  resource: Resource;
  namespaced: boolean;
}

export interface TtlRead {
  objects: TtlObject[];
  /** `group/version/Kind` (gvkName) -> how it is served. */
  served: Map<string, ServedKind>;
  /** Kinds a rule names that could not be read, and why (not served, not listable): said once, the rest read. */
  unavailable: { kind: string; why: string }[];
}

/** Metadata as the wire has it: only what a TTL is read from, and the identity a delete is tied to. */
type RawMeta = ObjectMeta;

/** Each distinct kind the rules name, in the order they name them. */
function kindsOf(rules: readonly TtlRule[]): GroupVersionKind[] {
  const seen = new Map<string, GroupVersionKind>();
  for (const r of rules) for (const k of r.kinds) if (!seen.has(gvkName(k))) seen.set(gvkName(k), k);
  return [...seen.values()];
}

/** Why a kind cannot be read: RBAC refused `verb` on it (a pass's LIST, an event's GET, the watch's LIST). */
export const mayNot = (verb: 'get' | 'list', s: ServedKind): string =>
  `kube-tidy may not ${verb} ${s.resource.plural} (RBAC: \`kube-tidy rbac --policy\` prints the ClusterRole the policy needs)`;

/** How `k` is served, or why it cannot be read: discovery's answer for its group/version (one request per group/version). */
export async function servedAs(r: Pick<ObjectsReader, 'objectReads'>, k: GroupVersionKind, cache: DiscoveryAnswers): Promise<ServedKind | string> {
  const gv = k.group ? `${k.group}/${k.version}` : k.version;
  if (!cache.has(gv))
    cache.set(
      gv,
      r.objectReads.discover(k.group, k.version).catch((e: unknown) => e),
    );
  const list = await cache.get(gv)!;
  if (list instanceof Error || (list as { resources?: unknown })?.resources === undefined) {
    if (failureKindOf(list) === 'not-found') return `${gv} is not served by this cluster`;
    throw list;
  }
  const found = (list as { resources: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[] }).resources.find(
    (x) => x.kind === k.kind && !x.name.includes('/'),
  );
  if (!found) return `${gv} serves no kind ${k.kind}`;
  const verbs = new Set(found.verbs ?? []);
  if (!verbs.has('list') || !verbs.has('delete')) return `${gv} ${found.name} cannot be listed and deleted (verbs: ${[...verbs].join(', ') || 'none'})`;
  return { resource: { group: k.group, version: k.version, plural: found.name }, namespaced: found.namespaced };
}

const ttlObject =
  (gvk: GroupVersionKind) =>
  (o: { metadata?: RawMeta; status?: { phase?: string } }): TtlObject | undefined => {
    const m = o.metadata;
    if (!m?.name || !m.uid || !m.resourceVersion) return undefined;
    // What the wire left out stays out (a namespaced object's namespace, its labels, its annotations).
    const some = Object.entries({ namespace: m.namespace, creationTimestamp: m.creationTimestamp, labels: m.labels, annotations: m.annotations }).filter(
      ([, v]) => v !== undefined && v !== '',
    );
    // A Pod's phase decides how it leaves (ttl-act.ts): kept from the same read its TTL is.
    const phase = gvk.group === '' && gvk.kind === 'Pod' && o.status?.phase ? { phase: o.status.phase } : {};
    return { gvk, name: m.name, uid: m.uid, resourceVersion: m.resourceVersion, ...(Object.fromEntries(some) as Partial<TtlObject>), ...phase };
  };

/**
 * The label selector the API server can choose `k`'s candidates by, or undefined: every object
 * must be read. Kyverno's TTL is a label, so when every rule naming the kind honours it alone,
 * an object without the label is no candidate of any of them, and the API server leaves it out
 * (`cleanup.kyverno.io/ttl`, the key's existence). kube-janitor's keys are read from the
 * annotations first, and an annotation cannot be selected on the server: a rule that honours
 * `janitor/ttl` or `janitor/expires` (the default sources) lists every object of its kinds.
 */
export function serverSelectorOf(rules: readonly TtlRule[], k: GroupVersionKind): string | undefined {
  const naming = rules.filter((r) => r.kinds.some((x) => gvkName(x) === gvkName(k)));
  const labelOnly = naming.length > 0 && naming.every((r) => r.sources.every((source) => source === KYVERNO_TTL_LABEL));
  return labelOnly ? KYVERNO_TTL_LABEL : undefined;
}

/** Every object of one served kind (in `namespace` alone when given: a cluster-scoped kind then only as that Namespace); only those `selector` matches, when given. */
async function listKind(
  r: ObjectsReader,
  k: GroupVersionKind,
  s: ServedKind,
  namespace: string | undefined,
  selector: string | undefined,
): Promise<TtlObject[]> {
  if (!s.namespaced && namespace !== undefined && !(k.group === '' && k.kind === 'Namespace')) return [];
  const fetch = (p: { limit?: number; _continue?: string }) =>
    r.objectReads.list<{ metadata?: RawMeta; status?: { phase?: string } }>(
      s.resource,
      s.namespaced ? namespace : undefined,
      selector === undefined ? p : { ...p, labelSelector: selector },
    );
  const items = (await listEverything(fetch, { what: `list ${s.resource.plural}` }, ttlObject(k))).items;
  return s.namespaced || namespace === undefined ? items : items.filter((o) => o.name === namespace);
}

export async function readTtl(r: ObjectsReader, rules: readonly TtlRule[], opts: { namespace?: string } = {}): Promise<TtlRead> {
  const read: TtlRead = { objects: [], served: new Map(), unavailable: [] };
  const cache = new Map<string, Promise<unknown>>();
  for (const k of kindsOf(rules)) {
    const s = await servedAs(r, k, cache);
    if (typeof s === 'string') {
      read.unavailable.push({ kind: gvkName(k), why: s });
      continue;
    }
    try {
      read.objects.push(...(await listKind(r, k, s, opts.namespace, serverSelectorOf(rules, k))));
      read.served.set(gvkName(k), s);
    } catch (e) {
      if (failureKindOf(e) !== 'forbidden') throw e;
      read.unavailable.push({
        kind: gvkName(k),
        why: mayNot('list', s),
      });
    }
  }
  return read;
}

/** The one object an event (or a due entry) names, by its kind and name. */
export interface TtlOne {
  gvk: GroupVersionKind;
  /** Absent or empty: a cluster-scoped object's event. */
  namespace?: string;
  name: string;
}

/**
 * The one object an event named, read by name as it is stored (the event is only a hint of
 * which): its kind found by discovery as the pass finds it, then a GET. Gone since: no object.
 * A kind not served, or one kube-tidy may not read, is said as the pass says it. `discovery`:
 * the process's kept answers (discovery-cache.ts), so an event costs no discovery request; a
 * fresh one without.
 */
export async function readTtlOne(r: ObjectsReader, one: TtlOne, discovery: DiscoveryAnswers = new Map()): Promise<TtlRead> {
  const read: TtlRead = { objects: [], served: new Map(), unavailable: [] };
  const kind = gvkName(one.gvk);
  const s = await servedAs(r, one.gvk, discovery);
  if (typeof s === 'string') return { ...read, unavailable: [{ kind, why: s }] };
  // A namespaced kind's event must say its namespace: the GET of a name alone would be the wrong path.
  if (s.namespaced && !one.namespace)
    return { ...read, unavailable: [{ kind, why: `${s.resource.plural} are namespaced: an event without a namespace names none` }] };
  try {
    const raw = await readRaw<{ metadata?: RawMeta }>(r, s.resource, { ...(s.namespaced ? { namespace: one.namespace } : {}), name: one.name });
    const o = raw ? ttlObject(one.gvk)(raw) : undefined;
    read.served.set(kind, s);
    if (o) read.objects.push(o);
    return read;
  } catch (e) {
    if (failureKindOf(e) !== 'forbidden') throw e;
    return {
      ...read,
      unavailable: [{ kind, why: mayNot('get', s) }],
    };
  }
}

/** What a namespace holds, counted: its pods, Jobs and claims (a namespace's deletion takes them all). */
export async function holdingsOf(r: ObjectsReader, namespace: string): Promise<NamespaceHoldings> {
  const count = async (resource: Resource) =>
    (
      await listEverything(
        (p) => r.objectReads.list<unknown>(resource, namespace, p),
        { what: `list ${resource.plural}` },
        () => true,
      )
    ).items.length;
  const [pods, jobs, claims] = await Promise.all([count(RESOURCES.pods), count(RESOURCES.jobs), count(RESOURCES.claims)]);
  return { pods, jobs, claims };
}

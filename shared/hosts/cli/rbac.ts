// `kube-tidy rbac --policy FILE`: the ClusterRole a policy's ttl rules need, as `kyverno create
// cluster-role` prints the one its cleanup controller needs: get, list, watch and delete on each
// kind a rule names, grouped by API group; for a rule that names Namespace, list on the pods,
// Jobs and claims a namespace's deletion report counts. Then the Role on those kinds' due lists
// in kube-tidy's namespace (objectUpdated times an object at its expiry there), as the chart's
// templates/ttl-rbac.yaml grants it: without it the event path cannot schedule an expiry.
// Offline: a kind's resource is named as the API server's REST mapper guesses it
// (apimachinery's UnsafeGuessKindToResource: lower case, "s", "es" after an s, "ies" for a y);
// a kind whose plural is irregular is given as `--resource`.
import { stringify } from 'yaml';
import { objectsTtlDueName } from '../../model/keys.js';
import type { TtlRule } from '../../policy/ttl-schema.js';

/** A kind's resource as the REST mapper guesses it from the Kind alone. */
export function guessResource(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular.endsWith('endpoints')) return singular;
  if (singular.endsWith('s')) return `${singular}es`;
  if (singular.endsWith('y')) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

// get: an event's object is read by name (objectUpdated), as the standalone watch's.
const TTL_VERBS = ['delete', 'get', 'list', 'watch'];

/** The ClusterRole's rules: one per API group, its resources sorted; what a Namespace's report reads after them. */
export function ttlRbacRules(rules: readonly TtlRule[], overrides: ReadonlyMap<string, string> = new Map()): PolicyRule[] {
  const byGroup = new Map<string, Set<string>>();
  for (const k of rules.flatMap((r) => r.kinds)) {
    const set = byGroup.get(k.group) ?? new Set<string>();
    set.add(overrides.get(k.kind) ?? guessResource(k.kind));
    byGroup.set(k.group, set);
  }
  const out = [...byGroup].sort(([a], [b]) => a.localeCompare(b)).map(([group, rs]) => ({ apiGroups: [group], resources: [...rs].sort(), verbs: TTL_VERBS }));
  if (rules.some((r) => r.kinds.some((k) => k.group === '' && k.kind === 'Namespace')))
    out.push(
      { apiGroups: [''], resources: ['persistentvolumeclaims', 'pods'], verbs: ['list'] },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['list'] },
    );
  return out;
}

const LABELS = { 'app.kubernetes.io/part-of': 'kube-tidy' };

/** The ClusterRole as YAML, named `name`. */
export function ttlClusterRole(rules: readonly TtlRule[], name: string, overrides?: ReadonlyMap<string, string>): string {
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name, labels: LABELS },
    rules: ttlRbacRules(rules, overrides),
  };
  return stringify(role);
}

/**
 * The Role, in kube-tidy's namespace (`where.namespace`), on the due lists of every kind the
 * rules name: create on ConfigMaps (a list is created on its first entry; create cannot be
 * limited by name), get and update on each kind's `where.shards` lists (DUE_SHARDS) by name.
 */
export function ttlDueRole(rules: readonly TtlRule[], name: string, where: { namespace: string; shards: number }): string {
  const kinds = new Map(rules.flatMap((r) => r.kinds).map((k) => [`${k.group}/${k.kind}`, k]));
  const names = [...kinds.values()].flatMap((k) => Array.from({ length: where.shards }, (_, shard) => objectsTtlDueName(k, shard)));
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name, namespace: where.namespace, labels: LABELS },
    rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'update'], resourceNames: [...new Set(names)].sort() },
    ],
  };
  return stringify(role);
}

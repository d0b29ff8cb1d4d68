// Least privilege, derived from serverless.yml: a ServiceAccount per function holding exactly
// the rules declared for it (cluster-wide rules in a ClusterRole, namespaced ones in a Role in
// that namespace only), read access to the policy ConfigMap by name when one is configured,
// and a read-only account for the ApiServerSource limited to the kinds it watches.
import { kebab, type Declaration, type RenderOptions, type Rule } from '../declaration/declaration.js';
import { INVOKER } from './sender-auth.js';

type Obj = Record<string, unknown>;

const RBAC = 'rbac.authorization.k8s.io/v1';

/** The group/plural RBAC names for a watched kind: `v1 Pod` -> `'' pods`. */
export function resourceOf(apiVersion: string, kind: string): { group: string; resource: string } {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
  return { group, resource: `${kind.toLowerCase()}s` };
}

/** `namespace/name` of the policy ConfigMap a function reads, moved to the rendered namespace. */
export function policyConfigMap(decl: Declaration, target: string, o: RenderOptions): { namespace: string; name: string } | undefined {
  const ref = { ...decl.provider.environment, ...decl.functions[target]!.environment }.POLICY_CONFIGMAP;
  if (!ref) return undefined;
  const [ns, name] = ref.split('/') as [string, string];
  return { namespace: ns === decl.provider.namespace ? o.namespace : ns, name };
}

function binding(kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, namespace: string | undefined, sa: { name: string; namespace: string }): Obj {
  return {
    apiVersion: RBAC,
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: kind === 'RoleBinding' ? 'Role' : 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace }],
  };
}

const toRule = (r: Rule): Obj => ({
  apiGroups: r.apiGroups,
  resources: r.resources,
  verbs: r.verbs,
  ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}),
});

export function renderRbac(decl: Declaration, o: RenderOptions): Obj[] {
  const out: Obj[] = [];
  const labels = { 'app.kubernetes.io/part-of': decl.service };
  for (const [target, f] of Object.entries(decl.functions)) {
    const sa = { name: kebab(target), namespace: o.namespace };
    const roleName = `${o.prefix}-${kebab(target)}`;
    out.push({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa.name, namespace: sa.namespace, labels } });
    const cluster = f.rbac.filter((r) => !r.namespace);
    if (cluster.length) {
      out.push({ apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: roleName, labels }, rules: cluster.map(toRule) });
      out.push(binding('ClusterRoleBinding', roleName, undefined, sa));
    }
    for (const [scope, namespace] of [
      ['kueue', o.kueueNamespace],
      ['own', o.namespace],
    ] as const) {
      const rules = f.rbac.filter((r) => r.namespace === scope);
      if (!rules.length) continue;
      const name = scope === 'kueue' ? roleName : `${roleName}-own`;
      out.push({ apiVersion: RBAC, kind: 'Role', metadata: { name, namespace, labels }, rules: rules.map(toRule) });
      out.push(binding('RoleBinding', name, namespace, sa));
    }
    const policy = policyConfigMap(decl, target, o);
    if (policy) {
      // By name: get at start, watch (with a metadata.name field selector) for edits.
      const name = `${roleName}-policy`;
      out.push({
        apiVersion: RBAC,
        kind: 'Role',
        metadata: { name, namespace: policy.namespace, labels },
        rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [policy.name], verbs: ['get', 'watch'] }],
      });
      out.push(binding('RoleBinding', name, policy.namespace, sa));
    }
  }

  const source = { name: 'apiserver-source', namespace: o.namespace };
  const sourceRole = `${o.prefix}-apiserver-source`;
  out.push({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: source.name, namespace: source.namespace, labels } });
  out.push({
    apiVersion: RBAC,
    kind: 'ClusterRole',
    metadata: { name: sourceRole, labels },
    rules: decl.provider.sources.apiserver.resources.map((r) => {
      const { group, resource } = resourceOf(r.apiVersion, r.kind);
      return { apiGroups: [group], resources: [resource], verbs: ['get', 'list', 'watch'] };
    }),
  });
  out.push(binding('ClusterRoleBinding', sourceRole, undefined, source));
  // No rights and no pod: the identity a person mints a token of (`kubectl create token
  // invoker --audience ...`) to call a function over HTTP when sender authentication is on.
  if (decl.provider.senderAuth.knative === 'kubernetes' && Object.values(decl.functions).some((f) => f.events.some((e) => 'http' in e))) {
    out.push({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: INVOKER, namespace: o.namespace, labels }, automountServiceAccountToken: false });
  }
  // The dead-letter sink only logs: an account with no rights and no token mounted.
  out.push({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'dead-letters', namespace: o.namespace, labels },
    automountServiceAccountToken: false,
  });
  return out;
}

// The descheduler's own RBAC, to run `kube-tidy descheduler` as a descheduler install does: the
// ServiceAccount, ClusterRole and bindings of kubernetes/base/rbac.yaml read from the
// descheduler's Go module at test time (the module the oracle builds from, in GOMODCACHE), not
// copied here. `head`: the role after v0.36.0, without `pods delete` (descheduler#1887, PR
// #1888 removed it: the descheduler evicts, never deletes). Names get a suffix so test files
// sharing a cluster do not meet; the ServiceAccount lives in the namespace given.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api, type KubeConfig, type V1ClusterRole, type V1PolicyRule } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { deschedulerModuleDir } from '../../infra/local/descheduler/build.js';
import { writeKubeconfig } from './credentials.js';

export type RoleVariant = 'v0.36.0' | 'head';

/** The ClusterRole's rules as the module ships them, or as HEAD has them. */
export function deschedulerRoleRules(variant: RoleVariant): V1PolicyRule[] {
  const docs = parseAllDocuments(readFileSync(join(deschedulerModuleDir(), 'kubernetes/base/rbac.yaml'), 'utf8')).map((d) => d.toJS() as { kind: string });
  const role = docs.find((d) => d.kind === 'ClusterRole') as V1ClusterRole;
  const rules = role.rules ?? [];
  if (variant === 'v0.36.0') return rules;
  return rules.map((r) => (r.apiGroups?.includes('') && r.resources?.includes('pods') ? { ...r, verbs: r.verbs.filter((v) => v !== 'delete') } : r));
}

/**
 * The descheduler's ServiceAccount in `namespace` bound to its ClusterRole (named with `suffix`),
 * and a kubeconfig holding a token of it: what the kubelet mounts in the descheduler's pod.
 */
export async function deschedulerAccount(kc: KubeConfig, o: { namespace: string; suffix: string; variant: RoleVariant; dir: string }): Promise<string> {
  const core = kc.makeApiClient(CoreV1Api);
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  const name = `descheduler-${o.suffix}`;
  await core.createNamespacedServiceAccount({ namespace: o.namespace, body: { metadata: { name } } });
  await rbac.createClusterRole({ body: { metadata: { name }, rules: deschedulerRoleRules(o.variant) } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace: o.namespace }],
    },
  });
  const token = await core.createNamespacedServiceAccountToken({ name, namespace: o.namespace, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const cluster = kc.getCurrentCluster()!;
  return writeKubeconfig(
    join(o.dir, `${name}.kubeconfig`),
    name,
    cluster.server,
    Buffer.from(cluster.caData ?? '', 'base64').toString('utf8'),
    token.status!.token,
  );
}

/** Removes what deschedulerAccount made outside its namespace. */
export async function removeDeschedulerAccount(kc: KubeConfig, suffix: string): Promise<void> {
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  const name = `descheduler-${suffix}`;
  await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
  await rbac.deleteClusterRole({ name }).catch(() => undefined);
}

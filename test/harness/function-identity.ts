// Each function under test with its own identity on the API server: the RBAC the generated
// Knative manifests give it (infra/knative/rbac.ts from serverless.yml, rendered into a test
// namespace with a test prefix, as test/integration/deploy/rbac.test.ts does), applied for
// real, and a TokenRequest token of its ServiceAccount in a kubeconfig. Requests refused by
// that RBAC are refused here too, and the audit log names the function as
// system:serviceaccount:<namespace>:<account>, apart from the test's own admin writes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthorizationV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { readDeclaration } from '../../infra/declaration/declaration.js';
import { toYaml } from '../../infra/knative/generate.js';
import { renderKnative } from '../../infra/knative/render.js';
import { writeKubeconfig } from './credentials.js';
import { kubectl } from './crds.js';
import { waitFor } from './wait.js';

export interface FunctionIdentities {
  namespace: string;
  /** `system:serviceaccount:<namespace>:<account>` of a target. */
  user(target: string): string;
  /** A kubeconfig authenticating as the target's ServiceAccount. */
  kubeconfig(target: string): string;
  /** Removes the cluster-scoped roles and bindings (the namespace goes with the test's). */
  remove(): Promise<void>;
}

/** podTerminated -> pod-terminated: the account name the renderer gives a target. */
export const accountOf = (target: string): string => target.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * Applies the generated RBAC into `namespace` (which must exist; `kueueNamespace` too) and
 * issues an hour-long token for each target's account. `kc` is an admin KubeConfig.
 */
export async function functionIdentities(kc: KubeConfig, kubeconfigPath: string, namespace: string, kueueNamespace: string): Promise<FunctionIdentities> {
  const decl = readDeclaration();
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-identity-'));
  const file = join(dir, 'rbac.yaml');
  writeFileSync(file, toYaml(renderKnative(decl, { namespace, kueueNamespace, prefix: namespace, image: 'x' })['20-rbac.yaml']!));
  await kubectl({ kubeconfigPath }, ['apply', '--server-side', '-f', file]);

  const core = kc.makeApiClient(CoreV1Api);
  const authz = kc.makeApiClient(AuthorizationV1Api);
  const cluster = kc.getCurrentCluster()!;
  const ca = Buffer.from(cluster.caData ?? '', 'base64').toString('utf8');
  const user = (target: string) => `system:serviceaccount:${namespace}:${accountOf(target)}`;
  const files = new Map<string, string>();
  for (const target of Object.keys(decl.functions)) {
    const account = accountOf(target);
    const token = await core.createNamespacedServiceAccountToken({ name: account, namespace, body: { spec: { expirationSeconds: 3600, audiences: [] } } });
    files.set(target, writeKubeconfig(join(dir, `${account}.kubeconfig`), `${namespace}-${account}`, cluster.server, ca, token.status!.token));
  }
  // The authorizer learns new bindings through an informer: wait until the last one counts.
  const last = Object.keys(decl.functions).at(-1)!;
  await waitFor('the functions RBAC to take effect', async () => {
    const review = await authz.createSubjectAccessReview({
      body: {
        spec: {
          user: user(last),
          groups: ['system:serviceaccounts', 'system:authenticated'],
          resourceAttributes: { verb: 'get', resource: 'pods', namespace },
        },
      },
    });
    return review.status?.allowed === true;
  });
  return {
    namespace,
    user,
    kubeconfig: (target) => {
      const f = files.get(target);
      if (!f) throw new Error(`no identity for ${target}: not in serverless.yml`);
      return f;
    },
    remove: async () => void (await kubectl({ kubeconfigPath }, ['delete', '--ignore-not-found', '--wait=false', '-f', file]).catch(() => undefined)),
  };
}

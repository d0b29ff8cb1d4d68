// kube-tidy as the chart runs it in standalone mode, for Kyverno's TTL tests: the chart renders
// its ServiceAccount, RBAC (the standalone account's and the ttl kinds' ClusterRole from
// `ttl.kinds`), the policy ConfigMap and the Deployment; everything but the Deployment is applied,
// and the Deployment's own container environment runs shared/hosts/standalone/main.ts as a child
// process with a token of that ServiceAccount (no kubelet runs the Deployment here).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthorizationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { tokenKubeconfig } from '../../../harness/credentials.js';
import { kubectl, waitFor, type Cluster } from '../../../harness/index.js';
import { chartCopy, containersOf, template, type Obj } from '../../helm/helm.js';
import { startStandalone, type Standalone } from '../../helm/standalone-process.js';

const NAMESPACE = 'kube-tidy';
const RELEASE = 'kt';
const ACCOUNT = `${RELEASE}-standalone`;

/**
 * The policy: one ttl rule over the kinds Kyverno's TTL tests label (Pod; ConfigMap in
 * permission-lack), Kyverno's label only, in every namespace but the protected ones.
 */
export const kyvernoTtlPolicy = (mode: 'delete' | 'report') => ({
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  kubeTidy: {
    ttl: [
      {
        name: 'kyverno-ttl',
        kinds: [
          { version: 'v1', kind: 'Pod' },
          { version: 'v1', kind: 'ConfigMap' },
        ],
        sources: ['cleanup.kyverno.io/ttl'],
        mode,
      },
    ],
  },
});

export interface KubeTidyOptions {
  mode: 'delete' | 'report';
  /**
   * How often the sweep runs: "@every 1h" keeps it out of the tests' minutes, so what removes the
   * pods at their expiry is objectUpdated, the standalone watch's events and timers.
   */
  sweep: string;
  /**
   * The chart's ttl.kinds: what its ClusterRole grants beyond the standalone account's own rights.
   * Pod only, as Kyverno's install grants its cleanup controller no ConfigMaps (permission-lack).
   */
  grantedKinds: string[];
}

/** The chart's objects for these values, and the standalone Deployment's container environment. */
async function render(o: KubeTidyOptions, dir: string): Promise<{ applied: Obj[]; env: Record<string, string> }> {
  const policy = join(dir, 'policy.yaml');
  writeFileSync(policy, stringify(kyvernoTtlPolicy(o.mode)));
  const kinds = Object.fromEntries(o.grantedKinds.map((k, i) => [`ttl.kinds[${i}].kind`, k]));
  const set = { mode: 'standalone', dryRun: 'false', 'standalone.functions': '{objectUpdated,sweep}', 'schedules.sweep': o.sweep, ...kinds };
  const { objects } = await template(chartCopy(), RELEASE, NAMESPACE, set, ['--skip-tests', '--set-file', `policy=${policy}`]);
  const deployment = objects.find((x) => x.kind === 'Deployment');
  const container = deployment && containersOf([deployment])[0];
  if (!container) throw new Error('the chart rendered no standalone Deployment');
  // POD_NAME and POD_NAMESPACE come from the downward API (valueFrom): startStandalone and the namespace give them.
  const env = Object.fromEntries((container.env ?? []).flatMap((e) => (e.value === undefined ? [] : [[e.name, e.value]])));
  const applied = objects.filter((x) => x.kind !== 'Deployment' && x.kind !== 'Service');
  return { applied, env };
}

/** Applies the chart's objects to `cluster` and starts the standalone process; resolves once it leads. */
export async function startKubeTidy(cluster: Cluster, o: KubeTidyOptions): Promise<Standalone> {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-kyverno-ttl-'));
  const kc = cluster.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const { applied, env } = await render(o, dir);
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  writeFileSync(join(dir, 'chart.yaml'), applied.map((x) => `---\n${stringify(x)}`).join(''));
  await kubectl(cluster, ['apply', '--server-side', '-f', join(dir, 'chart.yaml')]);
  const token = await waitFor('a token of the chart’s ServiceAccount', () =>
    core.createNamespacedServiceAccountToken({ name: ACCOUNT, namespace: NAMESPACE, body: { spec: { expirationSeconds: 3600, audiences: [] } } }),
  );
  const authz = kc.makeApiClient(AuthorizationV1Api);
  const user = `system:serviceaccount:${NAMESPACE}:${ACCOUNT}`;
  await waitFor('the chart’s RBAC to take effect', async () => {
    const r = await authz.createSubjectAccessReview({ body: { spec: { user, resourceAttributes: { verb: 'delete', resource: 'pods', namespace: 'any' } } } });
    return r.status?.allowed === true || undefined;
  });
  const kubeconfig = tokenKubeconfig(kc, join(dir, 'kube-tidy.kubeconfig'), ACCOUNT, token.status!.token);
  const p = await startStandalone(`${RELEASE}-standalone-0`, { ...env, KUBECONFIG: kubeconfig, POD_NAMESPACE: NAMESPACE });
  await waitFor(`kube-tidy to lead`, async () => (await p.leader()) === true || undefined, { timeoutMs: 120_000, intervalMs: 200 }).catch((e: Error) => {
    throw new Error(`${e.message}\n${p.log.join('').slice(-4000)}`);
  });
  return p;
}

// The standalone process against a real control plane, with a token of the chart's own
// ServiceAccount (its RBAC rendered by Helm and applied): it cleans the demo workload, a
// second replica stays passive until the leader's Lease expires after a kill -9, a SIGTERM
// gives the Lease up, and a SubjectAccessReview table pins what the account may and may not do.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, AuthorizationV1Api, BatchV1Api, CoordinationV1Api, CoreV1Api, PolicyV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { createBeforeBridge, createNamespaces, createWorkload, EXPECTED, NS, type Apis } from '../../../infra/local/demo/workload.js';
import { writeKubeconfig } from '../../harness/credentials.js';
import { EXIT_CODE_ANNOTATION, kubectl, startCluster, waitFor, type Cluster } from '../../harness/index.js';
import { chartCopy, template } from './helm.js';
import { startStandalone, type Standalone } from './standalone-process.js';

const NAMESPACE = 'kube-tidy';
const ACCOUNT = 'kube-tidy-standalone';
const USER = `system:serviceaccount:${NAMESPACE}:${ACCOUNT}`;
const LEASE = { duration: 4, renew: 3, retry: 1 };
let cluster: Cluster;
let env: Record<string, string>;
const procs: Standalone[] = [];

beforeAll(async () => {
  cluster = await startCluster({ name: 'standalone', kwokNodes: 2 });
  const kc = cluster.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  // The chart's own RBAC and policy ConfigMap, for the two functions this test runs.
  const { text } = await template(chartCopy(), 'kube-tidy', NAMESPACE, { mode: 'standalone', 'standalone.functions': '{podTerminated,sweep}' }, [
    '--set-file',
    `policy=${join(REPO_ROOT, 'infra/local/demo/policy.yaml')}`,
    '--show-only',
    'templates/standalone/rbac.yaml',
    '--show-only',
    'templates/standalone/policy.yaml',
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-standalone-'));
  writeFileSync(join(dir, 'chart.yaml'), text);
  await kubectl(cluster, ['apply', '--server-side', '-f', join(dir, 'chart.yaml')]);
  await waitFor('the ServiceAccount', () => core.readNamespacedServiceAccount({ name: ACCOUNT, namespace: NAMESPACE }).then(() => true));
  const token = await core.createNamespacedServiceAccountToken({
    name: ACCOUNT,
    namespace: NAMESPACE,
    body: { spec: { expirationSeconds: 3600, audiences: [] } },
  });
  const c = kc.getCurrentCluster()!;
  const kubeconfig = writeKubeconfig(
    join(dir, 'standalone.kubeconfig'),
    ACCOUNT,
    c.server,
    Buffer.from(c.caData ?? '', 'base64').toString('utf8'),
    token.status!.token,
  );
  const authz = kc.makeApiClient(AuthorizationV1Api);
  await waitFor(
    'the chart RBAC to take effect',
    async () =>
      (await authz.createSubjectAccessReview({ body: { spec: { user: USER, resourceAttributes: { verb: 'list', resource: 'pods' } } } })).status?.allowed ===
      true,
  );
  env = {
    KUBECONFIG: kubeconfig,
    POD_NAMESPACE: NAMESPACE,
    POLICY_CONFIGMAP: `${NAMESPACE}/kube-tidy-policy`,
    DRY_RUN: 'false',
    PROTECTED_NAMESPACES: `kube-system,${NS.protected}`,
    STANDALONE_FUNCTIONS: 'podTerminated,sweep',
    STANDALONE_SCHEDULES: JSON.stringify({ sweep: '@every 3s' }),
    // As the chart's defaults: the namespace selector needs the chart's list/watch on namespaces.
    STANDALONE_SELECTORS: JSON.stringify({
      namespaces: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-public', 'kube-node-lease'] }] },
      Pod: { matchExpressions: [{ key: 'kube-tidy.dev/ignore', operator: 'DoesNotExist' }] },
    }),
    LEASE_NAME: 'kube-tidy-standalone',
    LEASE_DURATION_SECONDS: String(LEASE.duration),
    LEASE_RENEW_DEADLINE_SECONDS: String(LEASE.renew),
    LEASE_RETRY_PERIOD_SECONDS: String(LEASE.retry),
    SHUTDOWN_TIMEOUT_SECONDS: '5',
  };
}, 300_000);

afterAll(async () => {
  for (const p of procs) p.child.kill('SIGKILL');
  await cluster?.stop();
});

const sar = async (verb: string, resource: string, o: { namespace?: string; name?: string; group?: string; subresource?: string } = {}) => {
  const authz = cluster.kubeConfig().makeApiClient(AuthorizationV1Api);
  const r = await authz.createSubjectAccessReview({
    body: {
      spec: { user: USER, groups: ['system:serviceaccounts', 'system:authenticated'], resourceAttributes: { verb, resource, group: o.group ?? '', ...o } },
    },
  });
  return r.status?.allowed === true;
};

describe("the chart's ServiceAccount may do exactly what the standalone process needs", () => {
  const lease = { group: 'coordination.k8s.io', namespace: NAMESPACE };
  it.each([
    { sentence: 'lists and watches pods cluster-wide', verb: 'watch', resource: 'pods', o: { namespace: 'any' }, allowed: true },
    { sentence: 'lists and watches namespaces (selectors.namespaces is set by default)', verb: 'watch', resource: 'namespaces', o: {}, allowed: true },
    { sentence: 'deletes pods', verb: 'delete', resource: 'pods', o: { namespace: 'any' }, allowed: true },
    { sentence: 'evicts pods', verb: 'create', resource: 'pods', o: { namespace: 'any', subresource: 'eviction' }, allowed: true },
    { sentence: 'records Events', verb: 'create', resource: 'events', o: { namespace: 'any', group: 'events.k8s.io' }, allowed: true },
    { sentence: 'creates a Lease in its namespace', verb: 'create', resource: 'leases', o: lease, allowed: true },
    { sentence: 'renews its own Lease', verb: 'update', resource: 'leases', o: { ...lease, name: 'kube-tidy-standalone' }, allowed: true },
    { sentence: 'reads its policy ConfigMap', verb: 'watch', resource: 'configmaps', o: { namespace: NAMESPACE, name: 'kube-tidy-policy' }, allowed: true },
    {
      sentence: "may not update another Lease (kube-controller-manager's)",
      verb: 'update',
      resource: 'leases',
      o: { group: 'coordination.k8s.io', namespace: 'kube-system', name: 'kube-controller-manager' },
      allowed: false,
    },
    { sentence: 'may not update another Lease in its own namespace', verb: 'update', resource: 'leases', o: { ...lease, name: 'other' }, allowed: false },
    { sentence: 'may not create pods', verb: 'create', resource: 'pods', o: { namespace: 'any' }, allowed: false },
    { sentence: 'may not read Secrets', verb: 'get', resource: 'secrets', o: { namespace: NAMESPACE }, allowed: false },
    { sentence: 'may not read other ConfigMaps', verb: 'get', resource: 'configmaps', o: { namespace: NAMESPACE, name: 'other' }, allowed: false },
    { sentence: 'may not patch nodes (defrag is not enabled here)', verb: 'patch', resource: 'nodes', o: {}, allowed: false },
    // Cleanup beyond pods (docs/objects.md): what the kubeTidy.objects rules name, watched and deleted with preconditions.
    { sentence: 'deletes finished Jobs (kubeTidy.objects)', verb: 'delete', resource: 'jobs', o: { namespace: 'any', group: 'batch' }, allowed: true },
    { sentence: 'watches claims (kubeTidy.objects)', verb: 'watch', resource: 'persistentvolumeclaims', o: { namespace: 'any' }, allowed: true },
    { sentence: 'may not delete a volume', verb: 'delete', resource: 'persistentvolumes', o: { name: 'pv' }, allowed: false },
    { sentence: 'may not delete CronJobs', verb: 'delete', resource: 'cronjobs', o: { namespace: 'any', group: 'batch' }, allowed: false },
    {
      sentence: 'may not touch its own RBAC',
      verb: 'update',
      resource: 'clusterroles',
      o: { group: 'rbac.authorization.k8s.io', name: 'kube-tidy-standalone' },
      allowed: false,
    },
  ])('$sentence', async ({ verb, resource, o, allowed }) => {
    expect(await sar(verb, resource, o)).toBe(allowed);
  });
});

describe('the standalone process', () => {
  it('leads alone, cleans the demo workload while a second replica waits, and the second takes over after a kill -9 once the Lease expires', async () => {
    const kc = cluster.kubeConfig();
    const api: Apis = {
      core: kc.makeApiClient(CoreV1Api),
      batch: kc.makeApiClient(BatchV1Api),
      apps: kc.makeApiClient(AppsV1Api),
      policy: kc.makeApiClient(PolicyV1Api),
    };
    await createNamespaces(api);
    await createBeforeBridge(api);

    const a = await startStandalone('replica-a', env);
    procs.push(a);
    await waitFor('replica-a to lead', async () => (await a.leader()) === true, { timeoutMs: 120_000 }).catch((e: Error) => {
      throw new Error(`${e.message}\n${a.log.join('')}`);
    });
    const b = await startStandalone('replica-b', env);
    procs.push(b);
    await waitFor('replica-b to answer', async () => (await b.leader()) !== undefined, { timeoutMs: 120_000 });

    await createWorkload(api);
    const names = async (namespace: string) => (await api.core.listNamespacedPod({ namespace })).items.map((p) => p.metadata!.name!);
    const gone = EXPECTED.filter((e) => e.expect === 'deleted' || e.expect === 'swept');
    const bPassive: boolean[] = [];
    await waitFor(
      'the deleted and swept pods to be gone',
      async () => {
        bPassive.push((await b.leader()) === false);
        const left = await names(NS.batch);
        return gone.every((e) => !left.some((n) => n.startsWith(e.prefix))) && left.some((n) => n.startsWith('flaky'));
      },
      { timeoutMs: 90_000 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${a.log.join('').slice(-4000)}`);
    });
    expect(bPassive.every(Boolean)).toBe(true);
    // What is kept stays: exit 1 for debugging, protected namespaces, the web Deployment.
    expect((await names(NS.batch)).filter((n) => n.startsWith('flaky'))).toHaveLength(2);
    expect((await names(NS.protected)).some((n) => n.startsWith('audit'))).toBe(true);
    expect((await names('kube-system')).some((n) => n.startsWith('node-agent'))).toBe(true);
    expect((await names(NS.web)).length).toBe(2);
    // The leader's /metrics shows what its targets removed: the host serves the recorder its runtime records into.
    const removed = (text: string) =>
      [...text.matchAll(new RegExp(`^kube_tidy_pods_evicted_total\\{[^}]*namespace="${NS.batch}"[^}]*\\} (\\S+)$`, 'gm'))].reduce(
        (n, m) => n + Number(m[1]),
        0,
      );
    expect(removed(await (await fetch(`http://127.0.0.1:${a.port}/metrics`)).text())).toBeGreaterThanOrEqual(gone.length);
    expect(removed(await (await fetch(`http://127.0.0.1:${b.port}/metrics`)).text())).toBe(0);

    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    // Passive for most of the lease duration: the dead leader's claim still counts.
    await new Promise((r) => setTimeout(r, (LEASE.duration - 1) * 1000));
    expect(await b.leader()).toBe(false);
    await waitFor('replica-b to take over', async () => (await b.leader()) === true, { timeoutMs: 20_000, intervalMs: 100 });
    const takeover = Date.now() - killedAt;
    console.log(`[standalone] takeover ${takeover} ms after kill -9 (lease ${LEASE.duration} s, retry ${LEASE.retry} s)`);
    expect(takeover).toBeGreaterThanOrEqual((LEASE.duration - 1) * 1000);
    expect(takeover).toBeLessThan((LEASE.duration + 2 * LEASE.retry + 2) * 1000);

    // And the new leader acts: a fresh failing pod is deleted.
    await api.core.createNamespacedPod({
      namespace: NS.batch,
      body: {
        metadata: { name: 'late-bad-input', annotations: { [EXIT_CODE_ANNOTATION]: '3' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
      },
    });
    await waitFor('the late pod to be deleted by replica-b', async () => !(await names(NS.batch)).includes('late-bad-input'), { timeoutMs: 30_000 });

    // SIGTERM: it drains, gives the Lease up and exits 0.
    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    const lease = await kc.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: 'kube-tidy-standalone', namespace: NAMESPACE });
    expect(lease.spec?.holderIdentity ?? '').toBe('');
    expect(lease.spec?.leaseTransitions).toBe(1);
  }, 240_000);
});

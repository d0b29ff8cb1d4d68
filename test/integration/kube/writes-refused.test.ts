import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { createLogger } from '../../../shared/log.js';
import { metricsExposition } from '../../../shared/metrics/exposition.js';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { writeKubeconfig } from '../../harness/credentials.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { exists, knativeRequest, runPod, runtimeFor, send, serve } from '../functions/setup.js';

// Issue 23, item 3: a write the API server refuses for good is counted by reason and verb
// (kube_tidy_writes_refused_total) and logged, once, at the one writer. Here kube-tidy runs as
// a ServiceAccount whose Role in the namespace lets it read pods but neither delete nor evict
// them (RBAC on the real control plane), and is asked to remove one of each kind.

const ns = testNamespace('writes-refused');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const lines: Record<string, unknown>[] = [];
const refused = () => lines.filter((l) => l.msg === 'write refused');

async function counted(reason: string, verb: string): Promise<number> {
  const line = (await metricsExposition(rt.metrics)).body
    .split('\n')
    .find((l) => l.startsWith(`kube_tidy_writes_refused_total{reason="${reason}",verb="${verb}"} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

/** A kubeconfig for a ServiceAccount that may get/list/watch pods (and record Events) in `namespace` only. */
async function readOnlyIdentity(namespace: string): Promise<string> {
  const rbac = sharedCluster().kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  await core().createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'no-delete' } } });
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: 'read-pods' },
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create'] },
      ],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: 'read-pods' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-pods' },
      subjects: [{ kind: 'ServiceAccount', name: 'no-delete', namespace }],
    },
  });
  const token = await core().createNamespacedServiceAccountToken({ name: 'no-delete', namespace, body: { spec: { expirationSeconds: 3600, audiences: [] } } });
  const c = sharedCluster().kubeConfig().getCurrentCluster()!;
  return writeKubeconfig(
    join(mkdtempSync(join(tmpdir(), 'kube-tidy-no-delete-')), 'kubeconfig'),
    'no-delete',
    c.server,
    Buffer.from(c.caData ?? '', 'base64').toString('utf8'),
    token.status!.token,
  );
}

let agent: ReturnType<typeof serve>;
/** The process under test: its recorder is what /metrics would show. */
let rt: Runtime;
beforeAll(async () => {
  // Refused writes are logged on the runtime's logger (set when its writer loads).
  const log = createLogger({ env: {}, destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  const policy = policyDoc(
    [{ name: 'PodLifeTime', args: { states: ['Failed', 'Running'], labelSelector: { matchLabels: { refuse: 'me' } }, namespaces: { include: [ns.name] } } }],
    {
      evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
    },
  );
  rt = await runtimeFor(policy, { KUBECONFIG: await readOnlyIdentity(ns.name) }, log);
  agent = serve(podTerminated, rt);
});

describe('writes the API server refuses (RBAC 403)', () => {
  it('a delete kube-tidy may not make: counted as reason forbidden, verb delete, and logged once', async () => {
    const pod = await runPod(core(), ns.name, 'failed', { exitCode: 3, labels: { refuse: 'me' } });
    const res = await send(agent, knativeRequest('binary', 'update', pod));
    expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(res.body)).toMatch(/forbidden/i);
    expect(await exists(core(), ns.name, 'failed')).toBeDefined();

    expect(await counted('forbidden', 'delete')).toBe(1);
    expect(refused()).toEqual([expect.objectContaining({ reason: 'forbidden', verb: 'delete', what: `delete pod ${ns.name}/failed` })]);
    expect(String(refused()[0]!.message)).toMatch(/cannot delete resource "pods"/);
  });

  it('an eviction kube-tidy may not make: counted as reason forbidden, verb evict', async () => {
    const pod = await runPod(core(), ns.name, 'running', { labels: { refuse: 'me' }, annotations: { 'descheduler.alpha.kubernetes.io/evict': 'true' } });
    const res = await send(agent, knativeRequest('binary', 'update', pod));
    expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
    expect((await exists(core(), ns.name, 'running'))?.metadata?.deletionTimestamp).toBeUndefined();

    expect(await counted('forbidden', 'evict')).toBe(1);
    expect(await counted('forbidden', 'delete')).toBe(1);
    expect(refused().map((l) => [l.reason, l.verb])).toEqual([
      ['forbidden', 'delete'],
      ['forbidden', 'evict'],
    ]);
  });
});

// Fencing (issue 23, item 0): a standalone leader paused past its Lease (SIGSTOP), deposed
// while it slept, and resumed (SIGCONT) writes nothing more, though its watch has a backlog
// of failed pods and its schedule is overdue. Two real standalone processes on the shared
// control plane, each with a ServiceAccount of its own so the API server's audit log says who
// sent what: the old leader's writes after the takeover must be none. The new leader is paused
// too while the pods fail (as in the outside campaign's case), so nothing but the old leader
// could remove them; a third replica then takes over and does, so the fence is not "nobody acts".
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../../harness/credentials.js';
import { describeWrite, sharedAudit, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { failedPolicy, makePods, range } from '../brakes/helpers.js';
import { startStandalone, type Standalone } from '../helm/standalone-process.js';

const ns = testNamespace('fence');
const LEASE = { duration: 4, renew: 3, retry: 1 };
const REPLICAS = ['replica-p', 'replica-q', 'replica-r'] as const;
const procs: Standalone[] = [];
const kubeconfigs: Record<string, string> = {};
let env: Record<string, string>;
const binding = () => `kube-tidy-fence-${ns.name}`;
const user = (replica: string) => `system:serviceaccount:${ns.name}:${replica}`;

beforeAll(async () => {
  const kc = sharedCluster().kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-fence-'));
  await kc.makeApiClient(RbacAuthorizationV1Api).createClusterRoleBinding({
    body: {
      metadata: { name: binding() },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: REPLICAS.map((name) => ({ kind: 'ServiceAccount', name, namespace: ns.name })),
    },
  });
  const cluster = kc.getCurrentCluster()!;
  for (const name of REPLICAS) {
    await core.createNamespacedServiceAccount({ namespace: ns.name, body: { metadata: { name } } });
    const token = await core.createNamespacedServiceAccountToken({ namespace: ns.name, name, body: { spec: { expirationSeconds: 3600, audiences: [] } } });
    kubeconfigs[name] = writeKubeconfig(
      join(dir, `${name}.kubeconfig`),
      name,
      cluster.server,
      Buffer.from(cluster.caData ?? '', 'base64').toString('utf8'),
      token.status!.token,
    );
  }
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify(failedPolicy([ns.name])));
  env = {
    POLICY_FILE: policy,
    POD_NAMESPACE: ns.name,
    KUBE_TIDY_NAMESPACE: ns.name,
    DRY_RUN: 'false',
    STANDALONE_FUNCTIONS: 'podTerminated,sweep',
    // Overdue by the time the paused leader resumes.
    STANDALONE_SCHEDULES: JSON.stringify({ sweep: '@every 2s' }),
    // Events of this namespace only: the shared cluster has other tests' pods.
    STANDALONE_SELECTORS: JSON.stringify({ namespaces: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [ns.name] }] } }),
    LEASE_NAME: 'kube-tidy-fence',
    LEASE_DURATION_SECONDS: String(LEASE.duration),
    LEASE_RENEW_DEADLINE_SECONDS: String(LEASE.renew),
    LEASE_RETRY_PERIOD_SECONDS: String(LEASE.retry),
    SHUTDOWN_TIMEOUT_SECONDS: '5',
  };
});

afterAll(async () => {
  for (const p of procs) {
    p.child.kill('SIGCONT');
    p.child.kill('SIGKILL');
  }
  await sharedCluster()
    .kubeConfig()
    .makeApiClient(RbacAuthorizationV1Api)
    .deleteClusterRoleBinding({ name: binding() })
    .catch(() => undefined);
});

async function start(name: (typeof REPLICAS)[number]): Promise<Standalone> {
  const p = await startStandalone(name, { ...env, KUBECONFIG: kubeconfigs[name]! });
  procs.push(p);
  return p;
}
const leads = (p: Standalone, what: string, timeoutMs = 30_000) =>
  waitFor(what, async () => (await p.leader()) === true, { timeoutMs, intervalMs: 100 }).catch((e: Error) => {
    throw new Error(`${e.message}\n${p.log.join('').slice(-4000)}`);
  });

describe('a standalone leader deposed while paused', () => {
  it('writes nothing after the takeover when it resumes: its backlog of watch events and its overdue sweep are dropped, not run', async () => {
    const audit = sharedAudit();
    const core = sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
    const p = await start('replica-p');
    await leads(p, 'replica-p to lead');
    const q = await start('replica-q');
    await waitFor('replica-q to answer', async () => (await q.leader()) === false, { timeoutMs: 30_000 });

    // P sleeps past its Lease; Q takes over.
    const pausedAt = Date.now();
    p.child.kill('SIGSTOP');
    await leads(q, 'replica-q to take over from the paused replica-p', 20_000);
    console.log(`[fencing] replica-q took over ${Date.now() - pausedAt} ms after replica-p was paused`);
    await audit.barrier();
    const takeover = audit.mark();

    // Q is paused too, with its Lease still valid; pods fail meanwhile, into P's watch backlog.
    q.child.kill('SIGSTOP');
    const names = range('failed', 15);
    await makePods(ns.name, names, { exitCode: 137 });

    // P resumes: it must find itself fenced, drop everything and exit 1.
    const resumedAt = Date.now();
    p.child.kill('SIGCONT');
    const code = await Promise.race([p.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 15_000))]);
    console.log(`[fencing] replica-p ${code === 'running' ? 'still running' : `exited ${code}`} ${Date.now() - resumedAt} ms after SIGCONT`);
    const byP = (await audit.settledSince(takeover)).filter((w) => w.user === user('replica-p'));
    expect(byP.map(describeWrite), p.log.join('').slice(-6000)).toEqual([]);
    expect(code).toBe(1);
    const said = p.log
      .join('')
      .split('\n')
      .filter((l) => l.includes(String(p.child.pid)))
      .map((l) => /"msg":"([^"]*)"/.exec(l)?.[1])
      .filter(Boolean);
    console.log(`[fencing] replica-p after SIGCONT: ${[...new Set(said.slice(said.lastIndexOf('leading: this replica acts') + 1))].join(' | ')}`);
    expect(said).toContain('lost the Lease: stopping');
    const left = (await core.listNamespacedPod({ namespace: ns.name })).items.map((x) => x.metadata!.name!);
    expect(names.filter((n) => !left.includes(n))).toEqual([]);

    // Not "nobody acts": a replica that holds the Lease removes them.
    q.child.kill('SIGKILL');
    const r = await start('replica-r');
    await leads(r, "replica-r to lead once the paused leaders' claims expire");
    await waitFor(
      'the failed pods to be removed by the leader',
      async () => (await core.listNamespacedPod({ namespace: ns.name })).items.every((x) => !names.includes(x.metadata!.name!)),
      { timeoutMs: 30_000 },
    );
    // (kwok, the stand-in kubelet, sends the final DELETE of each pod itself.)
    const removers = new Set(
      (await audit.settledSince(takeover))
        .filter((w) => w.resource === 'pods' && w.verb === 'delete' && w.code < 300 && REPLICAS.some((r) => w.user === user(r)))
        .map((w) => w.user),
    );
    expect([...removers]).toEqual([user('replica-r')]);
  }, 120_000);
});

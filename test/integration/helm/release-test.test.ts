// `helm test` on a standalone release, with the real Helm and the real control plane: the
// chart's test hook (templates/tests/standalone-release.yaml) passes while the leader holds
// its Lease and /metrics answers, and fails when the metrics endpoint is down or the Lease
// has expired. Nothing here can run a container, so the hook Pod is run by the kubelet
// stand-in (kubelet-stand-in.ts) on its own Node; the cluster has no kwok node, so every pod
// is bound there. The Deployment is installed with no replicas: the standalone processes run
// on this host (standalone-process.ts) with a token of the chart's own ServiceAccount, and
// the stand-in routes the chart's Service to the one the test names.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../../harness/credentials.js';
import { freePorts } from '../../harness/ports.js';
import { startCluster, waitFor, type Cluster } from '../../harness/index.js';
import { chartCopy, helm } from './helm.js';
import { startKubeletStandIn, type KubeletStandIn } from './kubelet-stand-in.js';
import { startStandalone, type Standalone } from './standalone-process.js';

const NS = 'kube-tidy';
const RELEASE = 'kube-tidy';
const LEASE = 'kube-tidy-standalone';
/** The chart's Service, as the test hook's --metrics-url names it. */
const SERVICE = `kube-tidy-standalone.${NS}.svc:8080`;
const TEST_POD = 'kube-tidy-standalone-test';
let cluster: Cluster;
let kubelet: KubeletStandIn;
let env: Record<string, string>;
const procs: Standalone[] = [];
const h = (args: string[]) => helm(args, { kubeconfig: cluster.kubeconfigPath });
const helmTest = () => h(['test', RELEASE, '-n', NS, '--timeout', '60s']);
const lastRun = () => kubelet.runs.at(-1)!;
const status = (e: unknown) => (e as { code?: number }).code;

async function leader(name: string, extra: Record<string, string> = {}): Promise<Standalone> {
  const p = await startStandalone(name, { ...env, ...extra });
  procs.push(p);
  await waitFor(`${name} to lead`, async () => (await p.leader()) === true, { timeoutMs: 120_000 }).catch((e: Error) => {
    throw new Error(`${e.message}\n${p.log.join('')}`);
  });
  return p;
}

beforeAll(async () => {
  cluster = await startCluster({ name: 'helm-test', kwokNodes: 0 });
  const kc = cluster.kubeConfig();
  kubelet = await startKubeletStandIn(kc, 'kubelet-stand-in');
  const out = await h([
    'install',
    RELEASE,
    chartCopy(),
    '-n',
    NS,
    '--create-namespace',
    '--set',
    'mode=standalone',
    '--set',
    'standalone.replicas=0',
    '--set',
    'standalone.functions={podTerminated}',
  ]);
  expect(out).toMatch(/STATUS: deployed/);
  const core = kc.makeApiClient(CoreV1Api);
  const token = await core.createNamespacedServiceAccountToken({
    name: 'kube-tidy-standalone',
    namespace: NS,
    body: { spec: { expirationSeconds: 3600, audiences: [] } },
  });
  const c = kc.getCurrentCluster()!;
  const kubeconfig = writeKubeconfig(
    join(mkdtempSync(join(tmpdir(), 'kube-tidy-release-test-')), 'standalone.kubeconfig'),
    'kube-tidy-standalone',
    c.server,
    Buffer.from(c.caData ?? '', 'base64').toString('utf8'),
    token.status!.token,
  );
  env = {
    KUBECONFIG: kubeconfig,
    POD_NAMESPACE: NS,
    POLICY_CONFIGMAP: `${NS}/kube-tidy-policy`,
    DRY_RUN: 'true',
    STANDALONE_FUNCTIONS: 'podTerminated',
    LEASE_NAME: LEASE,
    LEASE_DURATION_SECONDS: '4',
    LEASE_RENEW_DEADLINE_SECONDS: '3',
    LEASE_RETRY_PERIOD_SECONDS: '1',
    SHUTDOWN_TIMEOUT_SECONDS: '5',
  };
}, 300_000);

afterAll(async () => {
  for (const p of procs) p.child.kill('SIGKILL');
  kubelet?.stop();
  await cluster?.stop();
});

describe('helm test on a standalone release', () => {
  it('passes while the leader holds its Lease and /metrics answers; the hook Pod, its account and Role are gone after', async () => {
    const a = await leader('replica-a');
    kubelet.services.set(SERVICE, `127.0.0.1:${a.port}`);
    const out = await helmTest();
    console.log(`[release-test] ${lastRun().output.trim()}`);
    expect(out).toMatch(new RegExp(`TEST SUITE:\\s+${TEST_POD}[\\s\\S]*Phase:\\s+Succeeded`));
    expect(lastRun()).toMatchObject({ pod: `${NS}/${TEST_POD}`, exitCode: 0 });
    expect(lastRun().output).toMatch(new RegExp(`ok: Lease ${NS}/${LEASE} is held by replica-a`));
    expect(lastRun().output).toMatch(/ok: GET .* answered 200 with kube_tidy_ metrics/);
    // hook-succeeded: nothing of the test is left.
    const kc = cluster.kubeConfig();
    const gone = (read: () => Promise<unknown>) =>
      read().then(
        () => false,
        (e) => status(e) === 404,
      );
    expect(await gone(() => kc.makeApiClient(CoreV1Api).readNamespacedPod({ name: TEST_POD, namespace: NS }))).toBe(true);
    expect(await gone(() => kc.makeApiClient(CoreV1Api).readNamespacedServiceAccount({ name: TEST_POD, namespace: NS }))).toBe(true);
    expect(await gone(() => kc.makeApiClient(RbacAuthorizationV1Api).readNamespacedRole({ name: TEST_POD, namespace: NS }))).toBe(true);
  }, 240_000);

  it('fails while the Lease is held but the Service has no live /metrics behind it; the failed Pod stays', async () => {
    const [nothing] = await freePorts(1);
    kubelet.services.set(SERVICE, `127.0.0.1:${nothing}`);
    await expect(helmTest()).rejects.toThrow(/failed/);
    console.log(`[release-test] ${lastRun().output.trim()}`);
    expect(lastRun().exitCode).toBe(1);
    expect(lastRun().output).toMatch(/ok: Lease/);
    expect(lastRun().output).toMatch(new RegExp(`FAILED: GET http://127.0.0.1:${nothing}/metrics: no answer`));
    const pod = await cluster.kubeConfig().makeApiClient(CoreV1Api).readNamespacedPod({ name: TEST_POD, namespace: NS });
    expect(pod.status?.phase).toBe('Failed');
  }, 240_000);

  it('fails when what answers behind the Service is not kube-tidy (200 without kube_tidy_ metrics)', async () => {
    const stranger = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('# HELP up Up.\nup 1\n'));
    await new Promise<void>((r) => stranger.listen(0, '127.0.0.1', r));
    kubelet.services.set(SERVICE, `127.0.0.1:${(stranger.address() as AddressInfo).port}`);
    try {
      await expect(helmTest()).rejects.toThrow(/failed/);
    } finally {
      stranger.close();
    }
    expect(lastRun().exitCode).toBe(1);
    expect(lastRun().output).toMatch(/FAILED: GET .*: answered 200 without any kube_tidy_ metric/);
  }, 240_000);

  it('fails once the leader is gone long enough for its Lease to expire, though /metrics answers; passes again under a new leader', async () => {
    const a = procs[0]!;
    // Something of kube-tidy still answers /metrics behind the Service: a process leading a
    // Lease of another namespace (admin credentials), so it is not this release's leader.
    const other = await leader('elsewhere', { KUBECONFIG: cluster.kubeconfigPath, POD_NAMESPACE: 'default' });
    kubelet.services.set(SERVICE, `127.0.0.1:${other.port}`);
    a.child.kill('SIGKILL');
    const leases = cluster.kubeConfig().makeApiClient(CoordinationV1Api);
    await waitFor(
      'the Lease to expire',
      async () => {
        const l = (await leases.readNamespacedLease({ name: LEASE, namespace: NS })).spec!;
        return new Date(l.renewTime!).getTime() + l.leaseDurationSeconds! * 1000 < Date.now() - 500;
      },
      { timeoutMs: 20_000 },
    );
    await expect(helmTest()).rejects.toThrow(/failed/);
    console.log(`[release-test] ${lastRun().output.trim()}`);
    expect(lastRun().exitCode).toBe(1);
    expect(lastRun().output).toMatch(new RegExp(`FAILED: Lease ${NS}/${LEASE}: the Lease held by replica-a expired`));
    expect(lastRun().output).toMatch(/ok: GET .* answered 200/);

    // A new leader: the Lease is held again, and the failed Pod is replaced (before-hook-creation).
    const c = await leader('replica-c');
    kubelet.services.set(SERVICE, `127.0.0.1:${c.port}`);
    expect(await helmTest()).toMatch(/Phase:\s+Succeeded/);
    expect(lastRun().output).toMatch(/is held by replica-c/);
  }, 240_000);
});

// The production image tested as what it is: built by `npm run image` from infra/docker/Dockerfile
// (cached by its inputs' hash), unpacked, and run from its own root filesystem with its own
// config (entrypoint and command, environment, user, working directory) against a control plane
// of its own: podTerminated removes a Failed pod on its event; /bin/descheduler answers --help
// and runs one cycle; then the chart in standalone mode, its image set to the built digest, has
// its pod run from that image, take the Lease, sweep and clean the cluster from inside it, and
// `helm test` passes with the chart's hook Pod run from that image too.
// A broken COPY, a missing bundle file or a wrong entrypoint fails here (CONTRIBUTING.md).
import { appendFileSync, chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpMessage, toApiServerSourceEvent } from '../../../shared/cloudevents/index.js';
import type { KubeObject } from '../../../shared/cloudevents/types.js';
import { EXIT_CODE_ANNOTATION, startCluster, waitFor, type Cluster } from '../../harness/index.js';
import { buildAgain, sourceDateEpoch } from '../../../infra/image/build.js';
import { readImage } from '../../../infra/image/oci.js';
import { freePorts } from '../../harness/ports.js';
import { chartCopy, helm } from '../helm/helm.js';
import { accountDir, SERVICE_ACCOUNT_DIR, serviceEnv, startImageKubelet, type ImageKubelet } from './image-kubelet.js';
import { imageUnderTest, startContainer, type Container, type ImageUnderTest } from './image-under-test.js';

const NS = 'work';
const HOME = 'kube-tidy';
const POLICY = `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: failed
    pluginConfig:
      - {name: DefaultEvictor, args: {podProtections: {defaultDisabled: [FailedBarePods]}}}
      - {name: RemoveFailedPods, args: {minPodLifetimeSeconds: 0}}
    plugins:
      deschedule: {enabled: [RemoveFailedPods]}
`;

let image: ImageUnderTest;
let cluster: Cluster;
let core: CoreV1Api;
let policyDir: string;
let kwokNode: string;
const started: { kill(): void }[] = [];

beforeAll(async () => {
  // The build (cold: the base from Debian's mirror and Node from npm, then the steps) and the
  // control plane start together.
  [image, cluster] = await Promise.all([imageUnderTest(), startCluster({ name: 'image', kwokNodes: 1 })]);
  console.log(`[image] ${image.ref} (${image.cached ? 'cached' : 'built'} in ${(image.buildMs / 1000).toFixed(1)} s)`);
  core = cluster.kubeConfig().makeApiClient(CoreV1Api);
  kwokNode = (await core.listNode()).items.map((n) => n.metadata!.name!).find((n) => n.startsWith('kwok-'))!;
  for (const name of [NS, HOME]) await core.createNamespace({ body: { metadata: { name } } });
  // Readable by the image's user (1000), as a ConfigMap volume is.
  policyDir = mkdtempSync(join(tmpdir(), 'kube-tidy-image-policy-'));
  chmodSync(policyDir, 0o755);
  writeFileSync(join(policyDir, 'policy.yaml'), POLICY, { mode: 0o644 });
}, 900_000);

afterAll(async () => {
  for (const p of started) p.kill();
  await cluster?.stop();
});

/** A container of the image with the cluster's admin token mounted as its ServiceAccount's, and the policy at /etc/kube-tidy. */
function container(c: Container) {
  const account = accountDir(cluster.endpoint.token, cluster.endpoint.ca, HOME);
  const mounts = { [SERVICE_ACCOUNT_DIR]: account, '/etc/kube-tidy': policyDir, ...c.mounts };
  const p = startContainer(image, { ...c, env: { ...serviceEnv(cluster.kubeConfig()), ...c.env }, mounts }, (pid) =>
    appendFileSync(join(cluster.dir, 'pids'), `${pid}\n`),
  );
  started.push(p);
  return p;
}

/** A bare pod on the kwok node that kwok runs and ends with exit code 1 (Failed). */
async function failingPod(name: string, namespace = NS): Promise<void> {
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name, annotations: { [EXIT_CODE_ANNOTATION]: '1' } },
      spec: { nodeName: kwokNode, restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
    },
  });
}

/** A failing pod, once stored Failed. */
async function failedPod(name: string, namespace = NS): Promise<V1Pod> {
  await failingPod(name, namespace);
  return waitFor(`${namespace}/${name} to fail`, async () => {
    const pod = await core.readNamespacedPod({ name, namespace });
    return pod.status?.phase === 'Failed' && pod;
  });
}

const gone = (name: string, namespace = NS) =>
  waitFor(`${namespace}/${name} to be removed`, async () => !(await core.listNamespacedPod({ namespace })).items.some((p) => p.metadata?.name === name), {
    timeoutMs: 60_000,
  });

/** The JSON log line with this msg, once the process has written it. */
const logLine = (p: { output(): string }, msg: string) =>
  waitFor(`the "${msg}" log line`, async () => {
    for (const l of p.output().split('\n')) {
      try {
        const line = JSON.parse(l) as Record<string, unknown>;
        if (line.msg === msg) return line;
      } catch {
        // not a log line
      }
    }
    return undefined;
  });

describe("the image's own program", () => {
  it('has the config the Dockerfile gives it: non-root numeric user, /app, node server.cjs with no shell before it, the heap flag', () => {
    expect(image.user).toBe('1000:1000');
    expect(image.workdir).toBe('/app');
    expect([...image.entrypoint, ...image.cmd]).toEqual(['node', 'server.cjs']);
    expect(image.env).toMatchObject({ NODE_ENV: 'production', PORT: '8080', NODE_OPTIONS: '--max-old-space-size=153' });
  });

  it('podTerminated (its default command) removes a Failed pod on its event, from the code cache its RUN warmed, and exits 0 on SIGTERM', async () => {
    const [port] = await freePorts(1);
    const p = container({
      env: { FUNCTION_TARGET: 'podTerminated', PORT: String(port), POLICY_FILE: '/etc/kube-tidy/policy.yaml', DRY_RUN: 'false', KUBE_TIDY_NAMESPACE: HOME },
    });
    const serving = await logLine(p, 'serving').catch((e: Error) => {
      throw new Error(`${e.message}\n${p.output().slice(-3000)}`);
    });
    expect(serving.codeCache).toEqual({ app: 'accepted' });
    const pod = await failedPod('failed-on-event');
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      ...httpMessage(toApiServerSourceEvent('update', { ...pod, apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata! } as KubeObject, cluster.server)),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    await gone('failed-on-event');
    p.signal('SIGTERM');
    expect(await p.exited, p.output().slice(-3000)).toBe(0);
  });

  it('/bin/descheduler answers --help and runs one cycle that removes a Failed pod', async () => {
    const help = container({ command: ['/bin/descheduler', '--help'] });
    expect(await help.exited, help.output()).toBe(0);
    expect(help.output()).toContain('Usage: kube-tidy descheduler --policy-config-file FILE');
    await failedPod('failed-for-cycle');
    const cycle = container({
      command: ['/bin/descheduler'],
      args: ['--policy-config-file=/etc/kube-tidy/policy.yaml', '--descheduling-interval=0', '--secure-port=0'],
      env: { BRAKES_NAMESPACE: HOME },
    });
    expect(await cycle.exited, cycle.output().slice(-3000)).toBe(0);
    await gone('failed-for-cycle');
  });
});

describe('the build', () => {
  it('is reproducible: the same inputs built again (the RUN layer from its cache, every other layer, the config and the manifest anew) give the same digest', async () => {
    expect(await buildAgain()).toBe(image.digest);
  }, 300_000);

  it('carries no time but SOURCE_DATE_EPOCH (the last commit that changed its inputs): the config, its history and every layer added by the steps say SOURCE_DATE_EPOCH', () => {
    const { config } = readImage(image.layout, image.tag);
    const epoch = new Date(sourceDateEpoch() * 1000).toISOString().replace('.000Z', 'Z');
    expect(config.created).toBe(epoch);
    const steps = (config.history ?? []).slice(2);
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.map((h) => h.created)).toEqual(steps.map(() => epoch));
  });
});

describe('the chart in standalone mode with image set to the built digest', () => {
  let kubelet: ImageKubelet;
  afterAll(() => kubelet?.stop());

  it('runs its pod from that image, which takes the Lease, sweeps, and cleans the cluster from inside it', async () => {
    // The chart's pod must land on the stand-in's node, the workload's pods are bound to kwok's by name.
    await core.patchNode({ name: kwokNode, body: [{ op: 'add', path: '/spec/unschedulable', value: true }] });
    const [port] = await freePorts(1);
    // The chart's Service, as its test hook names it, is the leader's port here (the host's network).
    const services = new Map([[`kube-tidy-standalone.${HOME}.svc:${port}`, `127.0.0.1:${port}`]]);
    kubelet = await startImageKubelet(cluster.kubeConfig(), image, 'image-node', join(cluster.dir, 'pids'), services);
    await failedPod('failed-before-install');
    await failedPod('protected', 'kube-system');
    const set = { mode: 'standalone', image: image.ref, dryRun: 'false', 'standalone.port': String(port), 'schedules.sweep': '@every 3s' };
    const values = Object.entries(set).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
    await helm(['install', 'kube-tidy', chartCopy(), '-n', HOME, '--set-file', `policy=${join(policyDir, 'policy.yaml')}`, ...values], {
      kubeconfig: cluster.kubeconfigPath,
    });
    const run = await waitFor('the chart pod to run from the image', async () => kubelet.runs.find((r) => r.process || r.refused), { timeoutMs: 60_000 });
    expect(run.refused).toBeUndefined();
    expect(run.argv).toEqual(['node', 'standalone.cjs']);
    const leader = async () =>
      (
        await fetch(`http://127.0.0.1:${port}/readyz`)
          .then((r) => r.json() as Promise<{ leader: boolean }>)
          .catch(() => undefined)
      )?.leader;
    // A hang guard, as long as the other first leads' (helm/standalone.test.ts, release-test.test.ts):
    // the image's program starts in a chroot on cores the whole suite shares.
    await waitFor('it to lead', async () => (await leader()) === true, { timeoutMs: 120_000 }).catch((e: Error) => {
      throw new Error(`${e.message}\n${run.process!.output().slice(-4000)}`);
    });
    const lease = await cluster.kubeConfig().makeApiClient(CoordinationV1Api).readNamespacedLease({ name: 'kube-tidy-standalone', namespace: HOME });
    expect(lease.spec?.holderIdentity).toBe(run.pod.split('/')[1]);

    await gone('failed-before-install');
    // The running kube-tidy may remove it the moment it is Failed, before a read here sees it so
    // (its policy removes only Failed pods): created, then gone.
    await failingPod('failed-after-install');
    await gone('failed-after-install');
    const sweeps = async () => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return Number(/^kube_tidy_loop_duration_seconds_count\{[^}]*target="sweep"[^}]*\} (\S+)$/m.exec(text)?.[1] ?? 0);
    };
    await waitFor('a sweep to have run', async () => (await sweeps()) >= 1, { timeoutMs: 30_000 });
    expect((await core.listNamespacedPod({ namespace: 'kube-system' })).items.map((p) => p.metadata?.name)).toContain('protected');

    // `helm test`: the chart's hook Pod runs release-check.cjs from the same image (a bundle missing
    // from it exits non-zero: Failed, and helm test fails), reads the Lease with its own account and
    // GETs /metrics through the Service; it passes, and the hook deletes its Pod once it has.
    await helm(['test', 'kube-tidy', '-n', HOME, '--timeout', '120s'], { kubeconfig: cluster.kubeconfigPath });
    const check = kubelet.runs.find((r) => r.pod === `${HOME}/kube-tidy-standalone-test`)!;
    expect(check.argv.slice(0, 2)).toEqual(['node', 'release-check.cjs']);
    expect(check.argv).toContain(`http://127.0.0.1:${port}/metrics`);
    expect(check.exitCode, check.process?.output()).toBe(0);
    expect(check.process?.output()).toMatch(/ok: Lease kube-tidy\/kube-tidy-standalone is held by/);
    await waitFor(
      'the passed hook Pod to be deleted',
      async () => !(await core.listNamespacedPod({ namespace: HOME })).items.some((p) => p.metadata?.name === 'kube-tidy-standalone-test'),
    );

    // Uninstalled: the pod is deleted, its program gets SIGTERM, drains and exits 0.
    await helm(['uninstall', 'kube-tidy', '-n', HOME], { kubeconfig: cluster.kubeconfigPath });
    expect(await run.process!.exited, run.process!.output().slice(-3000)).toBe(0);
  }, 300_000);
});

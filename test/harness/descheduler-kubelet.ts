// A kubelet stand-in for descheduler pods, so the descheduler's own e2e tests can run their
// Deployment of `/bin/descheduler` against kube-tidy on a control plane without a container
// runtime. kwok plays every other pod (kwok-stages.yaml leaves pods whose container command is
// /bin/descheduler alone); for these, once the scheduler has bound them to a node, it plays
// the kubelet's part of the Pod lifecycle
// (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/) and maps what it cannot be:
// - the image: `/bin/descheduler <args>` runs `command` with the args: the image's own
//   /bin/descheduler bundle on Node with the image's NODE_OPTIONS (the e2e test builds it), or
//   by default `kube-tidy descheduler` from source (`node --import tsx shared/hosts/cli/main.ts`,
//   cwd the repository root);
// - the ServiceAccount token the kubelet mounts: a TokenRequest bound to the pod, as KUBECONFIG;
// - volumes: the kubelet mounts each ConfigMap volume's keys as files under its mountPath
//   (https://kubernetes.io/docs/concepts/configuration/configmap/#using-configmaps-as-files-from-a-pod);
//   here they are written to a directory of the pod's own and any argument under the
//   mountPath is rewritten to it;
// - the network namespace: each pod has its own, so every descheduler binds 10258; here they
//   share one host, so `--secure-port <free port>` is appended (the last flag wins);
// - the liveness probe is played as the kubelet plays it (HTTPS GET on that port, certificate
//   not verified, 200-399 healthy, after initialDelaySeconds then every periodSeconds); failures
//   are recorded, and a restart after failureThreshold of them is not played;
// - deletion: on a deletionTimestamp the process gets SIGTERM, then SIGKILL after the grace
//   period, and the deletion is confirmed (a delete with gracePeriodSeconds 0), as the kubelet
//   confirms a pod's deletion once its containers have stopped;
// - the time a kubelet takes to start a pod's container (CONTAINER_START_MS).
// Status goes through the status subresource. Processes run in their own process groups with
// their pids in the cluster's pids file, so the harness's cleanup kills them with the cluster.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type KubeConfig, type V1Container, type V1Pod } from '@kubernetes/client-node';
import { CLI_SOURCE } from './cli-process.js';
import { podKubeconfig, setPodStatus } from './pod-kubelet.js';
import { freePorts } from './ports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DESCHEDULER_COMMAND = '/bin/descheduler';
/**
 * How long the stand-in takes from a pod bound to its container running. A kubelet syncs the
 * pod, makes its sandbox, checks the image (IfNotPresent) and creates the container first: a
 * second or more on a kind node. Played as 2 s, so the e2e tests see a descheduler start as late
 * as they see it upstream: TestLeaderElection's policy evicts pods older than 5 s with one cycle
 * at start, and its pods are about 5 s old when the descheduler's Deployment is created (seen:
 * the image's bundle, started in well under a second, ran its cycle before they were).
 */
const CONTAINER_START_MS = 2_000;

export interface DeschedulerRun {
  pod: string;
  node: string;
  args: string[];
  port: number;
  startedAt: Date;
  /**
   * When each step of its start happened (ms since the epoch), for the report: the pod created
   * (the API server's creationTimestamp: whole seconds), seen bound by the stand-in, its process
   * spawned, Running written, the process's first output.
   */
  times: { created?: number; noticed: number; spawned?: number; running?: number; firstOutput?: number };
  exitCode?: number | null;
  signal?: string | null;
  /** The liveness probe as played: successes, failures, the longest run of failures in a row (the kubelet restarts at failureThreshold). */
  probes: { ok: number; failed: number; inARow: number; mostInARow: number; failureThreshold: number; lastError?: string };
  output: string;
}

export interface DeschedulerKubelet {
  runs: DeschedulerRun[];
  stop(): Promise<void>;
}

interface Running {
  run: DeschedulerRun;
  child: ChildProcess;
  exited: Promise<void>;
  stopProbe?: () => void;
  /** Set when the stand-in stops it (deletion, stop()): its exit is then expected. */
  stopping?: boolean;
}

/** What runs for /bin/descheduler: a command line before the pod's args, and the image's environment. */
export interface DeschedulerImage {
  command: string[];
  env?: Record<string, string>;
}

const FROM_SOURCE: DeschedulerImage = { command: [process.execPath, '--import', 'tsx', CLI_SOURCE, 'descheduler'] };

export const isDeschedulerPod = (pod: V1Pod): boolean => pod.spec?.containers?.[0]?.command?.[0] === DESCHEDULER_COMMAND;

/** `clusterDir`: the cluster's directory, whose pids file the harness's cleanup kills. */
export function startDeschedulerKubelet(kc: KubeConfig, clusterDir: string, image: DeschedulerImage = FROM_SOURCE): DeschedulerKubelet {
  const core = kc.makeApiClient(CoreV1Api);
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-descheduler-kubelet-'));
  const runs: DeschedulerRun[] = [];
  const running = new Map<string, Running>();
  const handled = new Set<string>();
  const starting = new Map<string, Promise<void>>();

  const startPod = async (pod: V1Pod) => {
    const started = await start(core, kc, pod, { dir, clusterDir, image, noticed: Date.now() });
    runs.push(started.run);
    running.set(pod.metadata!.uid!, started);
  };
  const deletePod = async (pod: V1Pod) => {
    const uid = pod.metadata!.uid!;
    await starting.get(uid)?.catch(() => undefined); // a pod deleted while starting is stopped once started
    const r = running.get(uid);
    if (r) await terminate(r, graceSeconds(pod));
    running.delete(uid);
    const { name, namespace } = pod.metadata as { name: string; namespace: string };
    // In the body: the API server reads a DELETE's query parameters only when it has no body.
    await core.deleteNamespacedPod({ name, namespace, body: { gracePeriodSeconds: 0, preconditions: { uid } } }).catch(() => undefined);
  };

  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const pods = await core.listPodForAllNamespaces().catch(() => ({ items: [] as V1Pod[] }));
      for (const pod of pods.items.filter((p) => isDeschedulerPod(p) && p.spec?.nodeName)) {
        const uid = pod.metadata!.uid!;
        const key = pod.metadata?.deletionTimestamp ? `delete/${uid}` : `start/${uid}`;
        if (handled.has(key) || (key.startsWith('start/') && handled.has(`delete/${uid}`))) continue;
        handled.add(key);
        const pending = key.startsWith('delete/') ? deletePod(pod) : startPod(pod);
        if (key.startsWith('start/')) starting.set(uid, pending);
        void pending.catch((e: unknown) => runs.push(failedRun(pod, e)));
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  void loop();
  return {
    runs,
    stop: async () => {
      stopped = true;
      await Promise.all([...running.values()].map((r) => terminate(r, 5)));
    },
  };
}

interface StartParts {
  dir: string;
  clusterDir: string;
  image: DeschedulerImage;
  noticed: number;
}

async function start(core: CoreV1Api, kc: KubeConfig, pod: V1Pod, { dir, clusterDir, image, noticed }: StartParts): Promise<Running> {
  const c = pod.spec!.containers[0]!;
  const podDir = join(dir, pod.metadata!.uid!);
  mkdirSync(podDir, { recursive: true });
  const kubeconfig = await podKubeconfig(core, kc, pod, podDir);
  const mounts = await mountConfigMaps(core, pod, podDir);
  const [port] = await freePorts(1);
  // The kubelet's pod startup before the container runs (sandbox, image, container create).
  await new Promise((r) => setTimeout(r, CONTAINER_START_MS));
  const args = [...(c.command ?? []).slice(1), ...(c.args ?? [])].map((a) => underMounts(a, mounts));
  args.push('--secure-port', String(port));
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? podDir, KUBECONFIG: kubeconfig, ...image.env };
  for (const e of c.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
  const [bin, ...before] = image.command as [string, ...string[]];
  const child = spawn(bin, [...before, ...args], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid) appendFileSync(join(clusterDir, 'pids'), `${child.pid}\n`);
  const { name, namespace } = pod.metadata as { name: string; namespace: string };
  const run: DeschedulerRun = {
    pod: `${namespace}/${name}`,
    node: pod.spec!.nodeName!,
    args,
    port: port!,
    startedAt: new Date(),
    times: { created: pod.metadata?.creationTimestamp?.getTime(), noticed, spawned: Date.now() },
    probes: { ok: 0, failed: 0, inARow: 0, mostInARow: 0, failureThreshold: 3 },
    output: '',
  };
  const take = (d: Buffer) => {
    run.times.firstOutput ??= Date.now();
    run.output += String(d);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      Object.assign(run, { exitCode: code, signal });
      resolve();
    }),
  );
  const running: Running = { run, child, exited };
  await setPodStatus(core, pod, runningStatus(c, run.startedAt));
  run.times.running = Date.now();
  running.stopProbe = playLivenessProbe(c, run);
  void exited.then(() => running.stopProbe?.());
  // A container that exits on its own under restartPolicy Always is restarted with back-off
  // (CrashLoopBackOff); the restart is not played, the exit is shown.
  void exited.then(() => {
    if (!running.stopping) void setPodStatus(core, pod, crashedStatus(c, run)).catch(() => undefined);
  });
  return running;
}

/** Each ConfigMap volume's keys as files in a directory of its own: mountPath -> directory. */
async function mountConfigMaps(core: CoreV1Api, pod: V1Pod, podDir: string): Promise<Map<string, string>> {
  const mounts = new Map<string, string>();
  const namespace = pod.metadata!.namespace!;
  for (const mount of pod.spec!.containers[0]!.volumeMounts ?? []) {
    const source = pod.spec!.volumes?.find((v) => v.name === mount.name)?.configMap;
    if (!source) continue;
    const cm = await core.readNamespacedConfigMap({ name: source.name!, namespace });
    const target = join(podDir, 'volumes', mount.name);
    mkdirSync(target, { recursive: true });
    const items = source.items ?? Object.keys(cm.data ?? {}).map((key) => ({ key, path: key }));
    for (const item of items) writeFileSync(join(target, item.path), cm.data?.[item.key] ?? '');
    mounts.set(mount.mountPath.replace(/\/+$/, ''), target);
  }
  return mounts;
}

/** An argument naming a path under a mountPath (alone or after `=`), rewritten to the mounted directory. */
function underMounts(arg: string, mounts: Map<string, string>): string {
  for (const [mountPath, target] of mounts) {
    for (const prefix of ['', ...(arg.includes('=') ? [arg.slice(0, arg.indexOf('=') + 1)] : [])]) {
      const value = arg.slice(prefix.length);
      if (value === mountPath || value.startsWith(`${mountPath}/`)) return prefix + target + value.slice(mountPath.length);
    }
  }
  return arg;
}

function runningStatus(c: V1Container, startedAt: Date): V1Pod['status'] {
  const ready = (type: string) => ({ type, status: 'True', lastTransitionTime: startedAt });
  return {
    phase: 'Running',
    startTime: startedAt,
    hostIP: '127.0.0.1',
    podIP: '127.0.0.1',
    conditions: [ready('PodScheduled'), ready('Initialized'), ready('ContainersReady'), ready('Ready')],
    containerStatuses: [{ name: c.name, image: c.image!, imageID: '', ready: true, started: true, restartCount: 0, state: { running: { startedAt } } }],
  };
}

function crashedStatus(c: V1Container, run: DeschedulerRun): V1Pod['status'] {
  const exitCode = run.exitCode ?? 137;
  const terminated = { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: run.startedAt, finishedAt: new Date() };
  return {
    containerStatuses: [
      {
        name: c.name,
        image: c.image!,
        imageID: '',
        ready: false,
        started: false,
        restartCount: 0,
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        lastState: { terminated },
      },
    ],
  };
}

/** The kubelet's HTTPS probe: GET, certificate not verified, 200-399 is healthy. Returns its stop. */
function playLivenessProbe(c: V1Container, run: DeschedulerRun): () => void {
  const probe = c.livenessProbe;
  const path = probe?.httpGet?.path;
  if (!probe || !path) return () => undefined;
  const p = run.probes;
  p.failureThreshold = probe.failureThreshold ?? 3;
  const failed = (why: string) =>
    Object.assign(p, { failed: p.failed + 1, inARow: p.inARow + 1, mostInARow: Math.max(p.mostInARow, p.inARow + 1), lastError: why });
  const once = () => {
    const req = request({ host: '127.0.0.1', port: run.port, path, rejectUnauthorized: false, timeout: (probe.timeoutSeconds ?? 1) * 1000 }, (res) => {
      res.resume();
      const code = res.statusCode ?? 0;
      if (code >= 200 && code < 400) Object.assign(p, { ok: p.ok + 1, inARow: 0 });
      else failed(`HTTP ${code}`);
    });
    req.on('error', (e) => failed(e.message));
    req.on('timeout', () => req.destroy(new Error('probe timed out')));
    req.end();
  };
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(
    () => {
      once();
      interval = setInterval(once, (probe.periodSeconds ?? 10) * 1000);
    },
    (probe.initialDelaySeconds ?? 0) * 1000,
  );
  return () => {
    clearTimeout(first);
    clearInterval(interval);
  };
}

function graceSeconds(pod: V1Pod): number {
  return pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
}

async function terminate(r: Running, grace: number): Promise<void> {
  r.stopping = true;
  if (r.run.exitCode !== undefined || r.run.signal !== undefined) return;
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-r.child.pid!, signal);
    } catch {
      // already gone
    }
  };
  kill('SIGTERM');
  const killer = setTimeout(() => kill('SIGKILL'), grace * 1000);
  await r.exited;
  clearTimeout(killer);
}

function failedRun(pod: V1Pod, e: unknown): DeschedulerRun {
  const { name, namespace } = pod.metadata as { name: string; namespace: string };
  const message = `stand-in: ${(e as Error).message}`;
  return {
    pod: `${namespace}/${name}`,
    node: pod.spec?.nodeName ?? '',
    args: [],
    port: 0,
    startedAt: new Date(),
    times: { noticed: Date.now() },
    probes: { ok: 0, failed: 0, inARow: 0, mostInARow: 0, failureThreshold: 3 },
    output: message,
  };
}

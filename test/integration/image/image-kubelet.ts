// A kubelet stand-in that runs pods from the built image itself (the control plane here has
// no container runtime; kwok only fakes pod states). It is the kubelet of one Node of its own
// (no kwok annotation, so kwok leaves it and its pods alone) and, for a pod the scheduler binds
// there, does what a kubelet does (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/):
// - the image: a pod whose container names the image under test (by digest) runs from its
//   unpacked root filesystem (image-under-test.ts: its entrypoint/command, user, working
//   directory and environment, Kubernetes' command/args rules); any other image stays Pending,
//   as an image that cannot be pulled would;
// - runAsNonRoot: refused (CreateContainerConfigError) when the image's user is root;
//   readOnlyRootFilesystem: the root mounted read-only;
// - env: values and the downward API's metadata.name / metadata.namespace;
// - the ServiceAccount token the kubelet mounts: a TokenRequest bound to the pod, with the
//   cluster's CA and the namespace, at /var/run/secrets/kubernetes.io/serviceaccount, and
//   KUBERNETES_SERVICE_HOST/PORT naming the API server (here on loopback), so the program finds
//   its cluster in-cluster, as in a real pod;
// - the pod network: the host's (ports must differ per pod; the chart's port is set per test);
//   cluster DNS and kube-proxy: `services` maps a Service's "host:port" named in a command or
//   argument URL to a local "127.0.0.1:port" (as helm/kubelet-stand-in.ts does);
// - the container's exit: with restartPolicy Never the phase is Succeeded when it exited 0,
//   else Failed, and the container terminated (the Pod lifecycle's phase rule: what `helm test`
//   waits for); with Always it is waiting in CrashLoopBackOff, its exit its last state;
// - deletion: SIGTERM to the program, SIGKILL after the grace period, then the deletion confirmed.
import { appendFileSync, chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { registerReadyNode, setPodStatus } from '../../harness/pod-kubelet.js';
import type { RootfsProcess } from '../../../infra/image/rootfs-process.js';
import { argvOf, startContainer, type ImageUnderTest } from './image-under-test.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface ImagePodRun {
  pod: string;
  argv: string[];
  process?: RootfsProcess;
  refused?: string;
  exitCode?: number | null;
}

export interface ImageKubelet {
  node: string;
  runs: ImagePodRun[];
  stop(): Promise<void>;
}

/** The files the kubelet mounts for a ServiceAccount: token (bound to the pod), ca.crt, namespace. */
export async function serviceAccountFiles(core: CoreV1Api, kc: KubeConfig, pod: V1Pod): Promise<string> {
  const { name, namespace, uid } = pod.metadata as { name: string; namespace: string; uid: string };
  const token = await core.createNamespacedServiceAccountToken({
    name: pod.spec?.serviceAccountName ?? 'default',
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name, uid } } },
  });
  return accountDir(token.status!.token, Buffer.from(kc.getCurrentCluster()?.caData ?? '', 'base64').toString('utf8'), namespace);
}

export function accountDir(token: string, ca: string, namespace: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-sa-'));
  // Readable by the image's user, as the kubelet's projected volume is (mode 0644).
  chmodSync(dir, 0o755);
  for (const [file, text] of Object.entries({ token, 'ca.crt': ca, namespace })) writeFileSync(join(dir, file), text, { mode: 0o644 });
  return dir;
}

/** KUBERNETES_SERVICE_HOST/PORT for the cluster's API server, as the kubelet sets them. */
export function serviceEnv(kc: KubeConfig): Record<string, string> {
  const url = new URL(kc.getCurrentCluster()!.server);
  return { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port || '443' };
}

function envOf(pod: V1Pod): Record<string, string> {
  const env: Record<string, string> = {};
  const fields: Record<string, string | undefined> = { 'metadata.name': pod.metadata?.name, 'metadata.namespace': pod.metadata?.namespace };
  for (const e of pod.spec!.containers[0]!.env ?? []) {
    const value = e.value ?? fields[e.valueFrom?.fieldRef?.fieldPath ?? ''];
    if (value !== undefined) env[e.name] = value;
  }
  return env;
}

export async function startImageKubelet(
  kc: KubeConfig,
  image: ImageUnderTest,
  node: string,
  pidsFile: string,
  services = new Map<string, string>(),
): Promise<ImageKubelet> {
  const core = kc.makeApiClient(CoreV1Api);
  await registerReadyNode(core, node, 'image kubelet stand-in');
  const runs: ImagePodRun[] = [];
  const byUid = new Map<string, ImagePodRun>();

  const start = async (pod: V1Pod) => {
    const c = pod.spec!.containers[0]!;
    const r: ImagePodRun = { pod: `${pod.metadata!.namespace}/${pod.metadata!.name}`, argv: [] };
    runs.push(r);
    byUid.set(pod.metadata!.uid!, r);
    if (c.image !== image.ref) return void (r.refused = `image ${c.image} is not the image under test`);
    const nonRoot = c.securityContext?.runAsNonRoot ?? pod.spec?.securityContext?.runAsNonRoot;
    if (nonRoot && image.user.split(':')[0] === '0') {
      r.refused = 'container has runAsNonRoot and image will run as root';
      return setPodStatus(core, pod, { containerStatuses: [waiting(c.name, c.image, 'CreateContainerConfigError')] });
    }
    const account = await serviceAccountFiles(core, kc, pod);
    const routed = (arg: string) => [...services].reduce((a, [svc, local]) => a.replaceAll(`//${svc}/`, `//${local}/`), arg);
    const container = {
      command: c.command?.map(routed),
      args: c.args?.map(routed),
      env: { ...serviceEnv(kc), ...envOf(pod) },
      readOnlyRootFilesystem: c.securityContext?.readOnlyRootFilesystem ?? false,
    };
    r.argv = argvOf(image, container);
    r.process = startContainer(image, { ...container, mounts: { [SERVICE_ACCOUNT_DIR]: account } }, (pid) => appendFileSync(pidsFile, `${pid}\n`));
    const startedAt = new Date();
    await setPodStatus(core, pod, {
      phase: 'Running',
      startTime: startedAt,
      hostIP: '127.0.0.1',
      podIP: '127.0.0.1',
      containerStatuses: [{ name: c.name, image: c.image, imageID: image.ref, ready: true, started: true, restartCount: 0, state: { running: { startedAt } } }],
    });
    void r.process.exited.then((code) => {
      r.exitCode = code;
      return setPodStatus(core, pod, exitStatus(pod, code, startedAt)).catch(() => undefined);
    });
  };

  const remove = async (pod: V1Pod) => {
    const r = byUid.get(pod.metadata!.uid!);
    if (r?.process && r.exitCode === undefined) {
      r.process.signal('SIGTERM');
      const grace = pod.metadata?.deletionGracePeriodSeconds ?? 30;
      const killer = setTimeout(() => r.process?.kill(), grace * 1000);
      await r.process.exited;
      clearTimeout(killer);
    }
    const { name, namespace, uid } = pod.metadata as { name: string; namespace: string; uid: string };
    await core.deleteNamespacedPod({ name, namespace, body: { gracePeriodSeconds: 0, preconditions: { uid } } }).catch(() => undefined);
  };

  const handled = new Set<string>();
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const pods = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` }).catch(() => ({ items: [] as V1Pod[] }));
      for (const pod of pods.items) {
        const key = `${pod.metadata?.deletionTimestamp ? 'delete' : 'start'}/${pod.metadata!.uid}`;
        if (handled.has(key)) continue;
        handled.add(key);
        const work = key.startsWith('delete/') ? remove(pod) : start(pod);
        void work.catch((e: unknown) => runs.push({ pod: pod.metadata!.name!, argv: [], refused: `stand-in: ${(e as Error).message}` }));
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  void loop();
  return {
    node,
    runs,
    stop: async () => {
      stopped = true;
      for (const r of runs) r.process?.kill();
      await Promise.all(runs.map((r) => r.process?.exited));
    },
  };
}

/** The pod's status once its one container exited with `code` (null: killed by a signal). */
function exitStatus(pod: V1Pod, code: number | null, startedAt: Date): V1Pod['status'] {
  const c = pod.spec!.containers[0]!;
  const terminated = { exitCode: code ?? 137, reason: code === 0 ? 'Completed' : 'Error', startedAt, finishedAt: new Date() };
  if (pod.spec?.restartPolicy === 'Never') {
    const state = { name: c.name, image: c.image!, imageID: '', ready: false, started: false, restartCount: 0, state: { terminated } };
    return { phase: code === 0 ? 'Succeeded' : 'Failed', containerStatuses: [state] };
  }
  return { containerStatuses: [{ ...waiting(c.name, c.image!, 'CrashLoopBackOff'), lastState: { terminated } }] };
}

function waiting(name: string, image: string, reason: string) {
  return { name, image, imageID: '', ready: false, started: false, restartCount: 0, state: { waiting: { reason } } };
}

// A stand-in for the kubelet, so `helm test` can run on the test control plane, which has no
// container runtime (kwok fakes nodes and pod states; it cannot run a command). It is the
// kubelet of one Node of its own (no kwok annotation: kwok leaves the Node and its pods alone)
// and plays, for the pods the scheduler binds there, the rule of the Kubernetes Pod lifecycle
// (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-phase): a Pod's
// containers run their command with their env and args; with restartPolicy Never the phase
// is Succeeded when the containers exited 0, else Failed; written through the status
// subresource, as the kubelet writes it. What it cannot be, it maps, and nothing else:
// - the image: `node <entry>.cjs` runs that bundle entry's source with tsx (ENTRIES below,
//   as infra/bundle/build.ts builds them); any other command stays Pending;
// - the token the kubelet mounts for the pod's ServiceAccount: a TokenRequest bound to the
//   pod, handed over as KUBECONFIG (so the pod's own RBAC decides what it may read);
// - cluster DNS and kube-proxy: `services` maps a Service's "host:port" in a URL argument to a
//   local "127.0.0.1:port" (changeable between runs: a Service with no live endpoint).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { podKubeconfig, registerReadyNode, setPodStatus } from '../../harness/pod-kubelet.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Bundle entry in the image -> its source. */
const ENTRIES: Record<string, string> = { 'release-check.cjs': 'shared/hosts/standalone/release-check.ts' };

export interface PodRun {
  pod: string;
  exitCode: number;
  output: string;
}

export interface KubeletStandIn {
  node: string;
  /** "host:port" of a Service -> "127.0.0.1:port". */
  services: Map<string, string>;
  runs: PodRun[];
  stop(): void;
}

export async function startKubeletStandIn(kc: KubeConfig, node: string, services = new Map<string, string>()): Promise<KubeletStandIn> {
  const core = kc.makeApiClient(CoreV1Api);
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-kubelet-'));
  await registerReadyNode(core, node, 'kubelet stand-in');

  const runs: PodRun[] = [];
  const seen = new Set<string>();
  const setStatus = (pod: V1Pod, status: V1Pod['status']) => setPodStatus(core, pod, status);

  const run = async (pod: V1Pod): Promise<void> => {
    const { name, namespace } = pod.metadata as { name: string; namespace: string };
    const c = pod.spec!.containers[0]!;
    const [bin, entry, ...rest] = c.command ?? [];
    const source = bin === 'node' && entry ? ENTRIES[entry] : undefined;
    if (!source || pod.spec!.containers.length !== 1) return; // not an image this stand-in can run: stays Pending
    const kubeconfig = await podKubeconfig(core, kc, pod, dir);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', KUBECONFIG: kubeconfig };
    for (const e of c.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
    const routed = (arg: string) => [...services].reduce((a, [svc, local]) => a.replaceAll(`//${svc}/`, `//${local}/`), arg);
    const args = [...rest, ...(c.args ?? [])].map(routed);
    const started = new Date();
    await setStatus(pod, {
      phase: 'Running',
      startTime: started,
      containerStatuses: [
        { name: c.name, image: c.image!, imageID: '', ready: true, restartCount: 0, started: true, state: { running: { startedAt: started } } },
      ],
    });
    const child = spawn(process.execPath, ['--import', 'tsx', source, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += String(d)));
    child.stderr.on('data', (d) => (output += String(d)));
    const exitCode = await new Promise<number>((r) => child.once('exit', (code) => r(code ?? 137)));
    runs.push({ pod: `${namespace}/${name}`, exitCode, output });
    const terminated = { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: started, finishedAt: new Date() };
    await setStatus(pod, {
      phase: exitCode === 0 ? 'Succeeded' : 'Failed',
      containerStatuses: [{ name: c.name, image: c.image!, imageID: '', ready: false, restartCount: 0, started: false, state: { terminated } }],
    });
  };

  // Polling the pods bound to this node (a kubelet watches them; polling is simpler and enough here).
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const pods = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` }).catch(() => ({ items: [] as V1Pod[] }));
      for (const pod of pods.items) {
        const { name, namespace, uid } = pod.metadata as { name: string; namespace: string; uid: string };
        // A pod being deleted that has not finished: the kubelet confirms the deletion.
        if (pod.metadata?.deletionTimestamp && !seen.has(uid)) void core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 }).catch(() => undefined);
        else if (!seen.has(uid) && (pod.status?.phase ?? 'Pending') === 'Pending') {
          seen.add(uid);
          void run(pod).catch((e: unknown) => runs.push({ pod: `${namespace}/${name}`, exitCode: -1, output: `stand-in: ${(e as Error).message}` }));
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  void loop();
  return { node, services, runs, stop: () => void (stopped = true) };
}

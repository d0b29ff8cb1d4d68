// The scale bench's population: bare pods bound (spec.nodeName) to plain Node objects that no
// kubelet or kwok manages, so creating 150,000 of them costs the API server two writes each
// and no controller reacts: a quarter Failed (what the policy selects), a quarter Succeeded
// (bare, so the DefaultEvictor keeps them: listed, decided, kept) and half Pending. Terminal
// pods bound to a node are removed at once on DELETE (no kubelet to wait for), as on a real
// node whose kubelet has finished them.
import { PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { kubeClients, type KubeClients } from '../../../shared/kube/clients.js';

const IMAGE = 'registry.k8s.io/pause:3.10';
/** The policy for every scale run: PodLifeTime over Succeeded and Failed pods; bare Failed pods allowed. */
export const SCALE_POLICY = {
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  profiles: [
    {
      name: 'scale',
      pluginConfig: [
        { name: 'DefaultEvictor', args: { podProtections: { defaultDisabled: ['FailedBarePods'] } } },
        { name: 'PodLifeTime', args: { states: ['Succeeded', 'Failed'] } },
      ],
      plugins: { deschedule: { enabled: ['PodLifeTime'] } },
    },
  ],
};

export const NAMESPACES = 20;
export const NODES = 50;
const WIDTH = 96;

export interface Population {
  total: number;
  failed: number;
  succeeded: number;
  pending: number;
  namespaces: string[];
  ms: number;
}

/** Raw clients with no client-side limit: the population is not what is measured. */
export const unthrottled = (kc: KubeConfig): KubeClients => kubeClients(kc, { qps: 1e6, burst: 1e6, timeoutMs: 120_000 });

export async function inParallel(count: number, width: number, each: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await each(next++);
    }),
  );
}

export async function prepareCluster(kc: KubeConfig): Promise<string[]> {
  const { core, close } = unthrottled(kc);
  const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `scale-${i}`);
  for (const name of namespaces) await core.createNamespace({ body: { metadata: { name } } });
  for (let i = 0; i < NODES; i++)
    await core.createNode({ body: { metadata: { name: `scale-node-${i}` }, status: { allocatable: { pods: '100000' }, capacity: { pods: '100000' } } } });
  // The ServiceAccount admission plugin refuses pods until each namespace's default SA exists.
  for (const namespace of namespaces) {
    for (let t = 0; t < 200; t++) {
      if ((await core.listNamespacedServiceAccount({ namespace })).items.some((s) => s.metadata?.name === 'default')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  close();
  return namespaces;
}

export type Kind = 'Failed' | 'Succeeded' | 'Pending';
const kindOf = (i: number): Kind => (i % 4 === 0 ? 'Failed' : i % 4 === 1 ? 'Succeeded' : 'Pending');

/** One bare pod bound to `node`, labelled bench=scale, then set to `kind`'s phase (Pending: left as created). */
export async function createPod(clients: KubeClients, namespace: string, name: string, node: string, kind: Kind): Promise<void> {
  await clients.core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name, labels: { bench: 'scale', kind: kind.toLowerCase() } },
      spec: { nodeName: node, restartPolicy: 'Never', containers: [{ name: 'main', image: IMAGE }] },
    },
  });
  if (kind === 'Pending') return;
  await clients.core.patchNamespacedPodStatus({ namespace, name, body: { status: { phase: kind } } }, mergePatch);
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** `total` pods named p-<round>-<i>; only the Failed ones with `onlyFailed` (refilling the backlog). */
export async function populate(kc: KubeConfig, namespaces: string[], total: number, round: number, onlyFailed = false): Promise<Population> {
  const clients = unthrottled(kc);
  const t0 = performance.now();
  const counts = { Failed: 0, Succeeded: 0, Pending: 0 };
  await inParallel(total, WIDTH, async (i) => {
    const kind = kindOf(i);
    if (onlyFailed && kind !== 'Failed') return;
    counts[kind]++;
    await createPod(clients, namespaces[i % namespaces.length]!, `p-${round}-${i}`, `scale-node-${i % NODES}`, kind);
  });
  clients.close();
  return {
    total: counts.Failed + counts.Succeeded + counts.Pending,
    failed: counts.Failed,
    succeeded: counts.Succeeded,
    pending: counts.Pending,
    namespaces,
    ms: Math.round(performance.now() - t0),
  };
}

/** Pods left in `phase` across the bench's namespaces (one paginated LIST with a field selector). */
export async function countPhase(kc: KubeConfig, phase: Kind): Promise<number> {
  const { core, close } = unthrottled(kc);
  let n = 0;
  let token: string | undefined;
  do {
    const list = await core.listPodForAllNamespaces({ fieldSelector: `status.phase=${phase}`, labelSelector: 'bench=scale', limit: 5000, _continue: token });
    n += list.items.length;
    token = list.metadata?._continue || undefined;
  } while (token);
  close();
  return n;
}

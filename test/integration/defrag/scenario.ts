import type { Pod } from '../../../shared/model/objects.js';
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { readDefragConfig, type StepIo } from '../../../shared/defrag/index.js';
import { admissionPort, type Admission } from '../../../shared/kube/admission.js';
import { kubeClients } from '../../../shared/kube/clients.js';
import { ClusterWriter } from '../../../shared/kube/writer.js';
import { Notifier } from '../../../shared/notify/notifier.js';
import { waitFor } from '../../harness/index.js';

// The fragmentation scenario on a real control plane: n kwok nodes of 8 cpu. A third are
// packed by a batch Deployment to 7 of 8 cpu; on the next third, one replica each of "web"
// (1 cpu, one per node by required anti-affinity), on the last third one of "api". Every
// node is busy; the best end state packs one web or api pod onto each batch node and pairs
// the rest web+api, freeing half the nodes. Phases are steered by cordoning the others.

/** MostAllocated packing, without the two scores that spread pods apart. */
export const MOST_ALLOCATED_PROFILES = [
  {
    schedulerName: 'default-scheduler',
    plugins: { score: { disabled: [{ name: 'NodeResourcesBalancedAllocation' }, { name: 'PodTopologySpread' }] } },
    pluginConfig: [
      {
        name: 'NodeResourcesFit',
        args: {
          scoringStrategy: {
            type: 'MostAllocated',
            resources: [
              { name: 'cpu', weight: 1 },
              { name: 'memory', weight: 1 },
            ],
          },
        },
      },
    ],
  },
];

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** kwok nodes with the allocatable chosen here: created Ready, so kwok's own stage leaves their status alone. */
export async function createNodes(core: CoreV1Api, names: string[], cpu = '8'): Promise<void> {
  for (const name of names) {
    await core.createNode({
      body: {
        metadata: { name, annotations: { 'kwok.x-k8s.io/node': 'fake' }, labels: { 'kubernetes.io/hostname': name, type: 'kwok' } },
        status: {
          allocatable: { cpu, memory: '32Gi', pods: '110' },
          capacity: { cpu, memory: '32Gi', pods: '110' },
          conditions: [
            { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kwok', lastHeartbeatTime: new Date(), lastTransitionTime: new Date() },
          ],
        },
      },
    });
  }
}

export async function cordon(core: CoreV1Api, names: string[], on: boolean): Promise<void> {
  for (const name of names) await core.patchNode({ name, body: { spec: { unschedulable: on } } }, merge);
}

/** A Deployment of pause pods asking `cpu` and 1Gi each; `anti`: one per node; `schedulerName`: placed by another scheduler (or by the test). */
export function deployment(name: string, replicas: number, cpu: string, anti: boolean, schedulerName?: string) {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          ...(schedulerName ? { schedulerName } : {}),
          terminationGracePeriodSeconds: 0,
          containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu, memory: '1Gi' } } }],
          ...(anti
            ? {
                affinity: {
                  podAntiAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: name } }, topologyKey: 'kubernetes.io/hostname' }],
                  },
                },
              }
            : {}),
        },
      },
    },
  };
}

export async function runningPods(core: CoreV1Api, ns: string): Promise<Pod[]> {
  const list = await core.listNamespacedPod({ namespace: ns });
  return list.items.filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp) as Pod[];
}

export async function settled(core: CoreV1Api, ns: string, expected: number): Promise<Pod[]> {
  return waitFor(
    `${expected} pods running in ${ns}`,
    async () => {
      const all = await core.listNamespacedPod({ namespace: ns });
      const running = all.items.filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp);
      return running.length === expected && all.items.length === expected && (running as Pod[]);
    },
    { timeoutMs: 120_000 },
  );
}

/**
 * Nodes n1 and n2 with one single-replica Deployment each (`a` on n1, `b` on n2), steered by
 * cordoning the other node; n1 is left cordoned, as an operator's cordon would be.
 */
export async function onePerNode(core: CoreV1Api, apps: AppsV1Api, ns: string): Promise<void> {
  await createNodes(core, ['n1', 'n2']);
  await cordon(core, ['n2'], true);
  await apps.createNamespacedDeployment({ namespace: ns, body: deployment('a', 1, '1', false) });
  await settled(core, ns, 1);
  await cordon(core, ['n2'], false);
  await cordon(core, ['n1'], true);
  await apps.createNamespacedDeployment({ namespace: ns, body: deployment('b', 1, '1', false) });
  await settled(core, ns, 2);
}

export function occupiedNodes(pods: Pod[]): Set<string> {
  return new Set(pods.map((p) => p.spec!.nodeName!));
}

/** Builds the scenario in namespace ns over `nodes` (length a multiple of 3); answers the pod count. */
export async function buildFragmented(kc: KubeConfig, ns: string, nodes: string[]): Promise<number> {
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const third = nodes.length / 3;
  const groups = [nodes.slice(0, third), nodes.slice(third, 2 * third), nodes.slice(2 * third)];
  const phases: [string, number, string, boolean][] = [
    ['batch', 2 * third, '3500m', false],
    ['web', third, '1', true],
    ['api', third, '1', true],
  ];
  let total = 0;
  for (const [i, [name, replicas, cpu, anti]] of phases.entries()) {
    await cordon(
      core,
      nodes.filter((n) => !groups[i]!.includes(n)),
      true,
    );
    await cordon(core, groups[i]!, false);
    await apps.createNamespacedDeployment({ namespace: ns, body: deployment(name, replicas, cpu, anti) });
    total += replicas;
    await settled(core, ns, total);
  }
  await cordon(core, nodes, false);
  return total;
}

export const nodeNames = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);

/**
 * What defragStep reads with and writes through (the one writer, with Events): shared/kube's
 * clients, as the function's, so the step's `requests` is what their middleware counted.
 * No kept-alive connections: nothing outlives the test.
 */
export const defragIo = (kc: KubeConfig, { dryRun }: { dryRun: boolean }): StepIo => {
  const clients = kubeClients(kc, { keepAlive: false });
  const writer = new ClusterWriter(clients, { dryRun, recordEvents: true, protectedNamespaces: ['kube-system'] });
  return { clients, writer, admission: ADMIT_ALL, notifier: Notifier.off() };
};

/**
 * These steps run with no policy and so no limits: every eviction admitted. The limits across
 * steps are the brakes' (brakes.test.ts here runs defrag with them, through the function).
 */
export const ADMIT_ALL: Admission = admissionPort({ admit: async () => ({ ticket: { counters: [] } }), settle: () => undefined });

/** The step's settings as configured by default (DEFRAG_* unset). */
export const STEP_DEFAULTS = readDefragConfig({});

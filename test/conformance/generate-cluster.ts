import type { ContainerStatus, Namespace, Node, Pod, PodCondition, PodDisruptionBudget, PriorityClass } from '../../shared/model/objects.js';
import type { Random } from './random.js';

// Realistic cluster contents for the differential test: pods as the API server stores them
// (phases with matching container, init and ephemeral statuses, restarts, conditions with
// transition times, owners of every kind, labels, priorities, volumes, the override and
// mirror annotations, deletion timestamps) on nodes of which some are NotReady.

/** Ages (seconds) that policies also use as thresholds: pods land on, just below and just above them. */
export const THRESHOLDS = [0, 1, 30, 60, 300, 600, 3600, 7200, 86400] as const;

export const NAMESPACES = ['default', 'batch', 'ml', 'web', 'team-a', 'kube-system'] as const;
export const LABEL_VALUES = { app: ['a', 'b', 'c'], team: ['x', 'y'], tier: ['web', 'worker'] } as const;
export const OWNER_KINDS = ['ReplicaSet', 'Job', 'StatefulSet', 'DaemonSet', 'ReplicationController', 'Workflow', 'VirtualMachineInstance'] as const;
export const STORAGE_CLASSES = ['fast', 'standard'] as const;

/** Name and value of each PriorityClass the cases know (built-in ones included, as a cluster has them). */
export const PRIORITY_CLASSES: Record<string, number> = {
  low: 100,
  high: 1_000_000,
  'system-cluster-critical': 2_000_000_000,
  'system-node-critical': 2_000_001_000,
};

export interface Cluster {
  pods: Pod[];
  nodes: Node[];
  namespaces: Namespace[];
  priorityClasses: PriorityClass[];
  pdbs: PodDisruptionBudget[];
  /** PVCs as objects (namespace, name, storage class); the oracle reads them, kube-tidy gets a map. */
  pvcs: { namespace: string; name: string; storageClassName?: string }[];
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

export function age(r: Random): number {
  if (r.chance(0.6)) return Math.max(0, r.pick(THRESHOLDS) + r.int(-1, 1));
  return r.int(0, 3 * 86400);
}

function node(r: Random, i: number): Node {
  const ready = r.weighted([
    ['True', 85],
    ['False', 10],
    ['Unknown', 5],
  ] as const);
  const name = `node-${i}`;
  return {
    metadata: {
      name,
      uid: `node-uid-${i}`,
      labels: {
        'kubernetes.io/hostname': name,
        zone: r.pick(['a', 'b']),
        pool: r.weighted([
          ['cpu', 3],
          ['gpu', 1],
        ] as const),
      },
    },
    spec: {
      unschedulable: r.chance(0.08) || undefined,
      taints: r.chance(0.1) ? [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] : undefined,
    },
    status: {
      allocatable: { cpu: r.pick(['2', '4', '8']), memory: r.pick(['4Gi', '8Gi', '16Gi']), pods: '110' },
      conditions: [{ type: 'Ready', status: ready }],
    },
  };
}

function terminated(r: Random, failed: boolean): ContainerStatus['state'] {
  if (!failed) return { terminated: { exitCode: 0, reason: 'Completed' } };
  const [reason, exitCode] = r.pick([
    ['Error', 1],
    ['Error', 2],
    ['Error', 3],
    ['Error', 127],
    ['OOMKilled', 137],
    ['Error', 143],
    ['ContainerCannotRun', 128],
    ['StartError', 128],
    ['DeadlineExceeded', 143],
    ['Evicted', 137],
  ] as const);
  return { terminated: { exitCode, reason } };
}

const WAITING_PENDING = [
  'ContainerCreating',
  'ImagePullBackOff',
  'ErrImagePull',
  'CreateContainerConfigError',
  'InvalidImageName',
  'PodInitializing',
  'CreateContainerError',
] as const;

function containerStatus(r: Random, name: string, phase: string): ContainerStatus {
  const restarts = r.chance(0.5) ? 0 : r.int(1, 25);
  let state: ContainerStatus['state'];
  if (phase === 'Running') state = r.chance(0.75) ? { running: {} } : r.chance(0.8) ? { waiting: { reason: 'CrashLoopBackOff' } } : terminated(r, true);
  else if (phase === 'Pending') state = { waiting: { reason: r.pick(WAITING_PENDING) } };
  else if (phase === 'Succeeded') state = terminated(r, false);
  else if (phase === 'Failed') state = r.chance(0.85) ? terminated(r, true) : terminated(r, false);
  else state = r.pick([{ running: {} }, { waiting: { reason: 'ContainerCreating' } }, terminated(r, r.chance(0.5))]);
  return { name, restartCount: phase === 'Pending' ? Math.min(restarts, 3) : restarts, state };
}

function conditions(r: Random, phase: string, created: number, now: number): PodCondition[] {
  const at = () =>
    r.chance(0.05)
      ? undefined
      : iso(
          Math.min(
            now,
            created +
              1000 *
                r.weighted([
                  [0, 2],
                  [age(r), 5],
                  [1, 1],
                ] as const),
          ),
        );
  const ready = phase === 'Running' ? r.pick(['True', 'False']) : 'False';
  const out: PodCondition[] = [
    { type: 'PodScheduled', status: 'True', lastTransitionTime: at() },
    { type: 'Initialized', status: phase === 'Pending' ? r.pick(['True', 'False']) : 'True', lastTransitionTime: at() },
    { type: 'ContainersReady', status: ready, lastTransitionTime: at() },
    {
      type: 'Ready',
      status: ready,
      reason: ready === 'True' ? undefined : phase === 'Succeeded' ? 'PodCompleted' : phase === 'Failed' ? 'PodFailed' : 'ContainersNotReady',
      lastTransitionTime: at(),
    },
  ];
  if (r.chance(0.1))
    out.push({
      type: 'DisruptionTarget',
      status: 'True',
      reason: r.pick(['TerminationByKubelet', 'EvictionByEvictionAPI', 'DeletionByTaintManager']),
      lastTransitionTime: at(),
    });
  return out.filter(() => !r.chance(0.05));
}

export function cluster(r: Random, now: number): Cluster {
  const nodes = Array.from(
    {
      length: r.weighted([
        [1, 0.5],
        [2, 4],
        [3, 5],
        [4, 3],
        [5, 2],
      ] as const),
    },
    (_, i) => node(r, i),
  );
  const namespaces: Namespace[] = NAMESPACES.map((name) => ({
    metadata: { name, labels: { env: r.pick(['prod', 'dev']), 'kubernetes.io/metadata.name': name } },
  }));
  const owners = Array.from({ length: r.int(2, 6) }, (_, i) => ({ kind: r.pick(OWNER_KINDS), name: `owner-${i}`, uid: `owner-uid-${i}` }));
  const pvcs: Cluster['pvcs'] = [];
  const pods: Pod[] = [];
  const count = r.weighted([
    [r.int(1, 5), 2],
    [r.int(6, 15), 5],
    [r.int(16, 30), 2],
  ] as const);
  for (let i = 0; i < count; i++) pods.push(pod(r, i, now, nodes, owners, pods, pvcs));
  const pdbs: PodDisruptionBudget[] = Array.from({ length: r.int(0, 2) }, (_, i) => ({
    metadata: { name: `pdb-${i}`, namespace: r.pick(NAMESPACES) },
    spec: { selector: { matchLabels: { app: r.pick(LABEL_VALUES.app) } } },
  }));
  const priorityClasses = Object.entries(PRIORITY_CLASSES).map(([name, value]) => ({ metadata: { name }, value }));
  return { pods, nodes, namespaces, priorityClasses, pdbs, pvcs };
}

type Owner = { kind: string; name: string; uid: string };

function pod(r: Random, i: number, now: number, nodes: Node[], owners: Owner[], earlier: Pod[], pvcs: Cluster['pvcs']): Pod {
  const namespace = r.weighted([
    ['default', 3],
    ['batch', 3],
    ['ml', 2],
    ['web', 2],
    ['team-a', 1],
    ['kube-system', 1],
  ] as const);
  const name = `p-${i}`;
  // Siblings made at once share their creation second: the tie-break matters.
  const created =
    r.chance(0.15) && earlier.length ? Date.parse(earlier[r.int(0, earlier.length - 1)]!.metadata.creationTimestamp as string) : now - 1000 * age(r);
  const phase = r.weighted([
    ['Running', 40],
    ['Pending', 12],
    ['Succeeded', 15],
    ['Failed', 28],
    ['Unknown', 5],
  ] as const);
  const scheduled = phase !== 'Pending' || r.chance(0.5);
  const nodeName = !scheduled ? undefined : r.chance(0.03) ? 'node-gone' : nodes[r.int(0, nodes.length - 1)]!.metadata.name;
  const labels: Record<string, string> = {};
  for (const [k, vs] of Object.entries(LABEL_VALUES)) if (r.chance(0.6)) labels[k] = r.pick(vs);
  const annotations: Record<string, string> = {};
  if (r.chance(0.08)) annotations['descheduler.alpha.kubernetes.io/evict'] = 'true';
  if (r.chance(0.06)) annotations['descheduler.alpha.kubernetes.io/prefer-no-eviction'] = 'true';
  const mirror = r.chance(0.03);
  if (mirror) Object.assign(annotations, { 'kubernetes.io/config.mirror': 'hash', 'kubernetes.io/config.source': 'file' });
  else if (r.chance(0.02)) annotations['kubernetes.io/config.source'] = r.pick(['file', 'http', 'api']);
  const ownerRefs = mirror
    ? [{ apiVersion: 'v1', kind: 'Node', name: nodeName ?? 'node-0', uid: 'node-owner' }]
    : r
        .weighted([
          [[], 25],
          [[r.pick(owners)], 70],
          [r.subset(owners, 2, 2), 5],
        ] as const)
        .map((o) => ({ apiVersion: 'apps/v1', kind: o.kind, name: o.name, uid: o.uid, controller: true }));
  const cls = r.weighted([
    [undefined, 6],
    ['low', 1],
    ['high', 1],
    ['system-cluster-critical', 1],
    ['system-node-critical', 0.5],
  ] as const);
  const volumes = [];
  if (r.chance(0.2)) volumes.push({ name: 'scratch', emptyDir: {} });
  if (r.chance(0.05)) volumes.push({ name: 'host', hostPath: { path: '/var/log' } });
  if (r.chance(0.3)) volumes.push({ name: 'config', configMap: { name: 'cfg' } });
  if (r.chance(0.15)) {
    const claimName = `${name}-data`;
    const sc = r.weighted([
      [r.pick(STORAGE_CLASSES), 8],
      [undefined, 1],
      ['missing', 1],
    ] as const);
    if (sc !== 'missing') pvcs.push({ namespace, name: claimName, storageClassName: sc });
    volumes.push({ name: 'data', persistentVolumeClaim: { claimName } });
  }
  if (r.chance(0.05)) volumes.push({ name: 'eph', ephemeral: { volumeClaimTemplate: { spec: { storageClassName: r.pick(STORAGE_CLASSES) } } } });
  const containers = Array.from({ length: r.int(1, 3) }, (_, c) => ({
    name: `c${c}`,
    resources: r.chance(0.7) ? { requests: { cpu: r.pick(['100m', '500m', '1', '2', '3']), memory: r.pick(['128Mi', '1Gi', '4Gi', '12Gi']) } } : undefined,
  }));
  const withInit = r.chance(0.4);
  const initPhase = phase === 'Failed' && r.chance(0.3) ? 'Failed' : phase === 'Pending' ? 'Pending' : 'Succeeded';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: `pod-uid-${i}`,
      resourceVersion: String(100 + i),
      creationTimestamp: iso(created),
      deletionTimestamp: r.chance(0.05) ? iso(now - 1000 * r.int(0, 60)) : undefined,
      labels,
      annotations: Object.keys(annotations).length ? annotations : undefined,
      ownerReferences: ownerRefs.length ? ownerRefs : undefined,
    },
    spec: {
      nodeName,
      priorityClassName: cls,
      // Priority admission fills the value from the class (0 without one); old dumps may lack it.
      priority: cls ? PRIORITY_CLASSES[cls] : r.chance(0.8) ? 0 : undefined,
      volumes: volumes as never,
      resourceClaims: r.chance(0.03) ? [{ name: 'gpu', resourceClaimName: 'gpu-claim' }] : undefined,
      nodeSelector: r.chance(0.1) ? { pool: 'gpu' } : undefined,
      tolerations: r.chance(0.15) ? [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }] : undefined,
      containers,
      initContainers: withInit ? [{ name: 'init' }] : undefined,
    },
    status: {
      phase,
      reason:
        phase === 'Failed' && r.chance(0.3)
          ? r.pick(['Evicted', 'NodeAffinity', 'Shutdown', 'UnexpectedAdmissionError', 'DeadlineExceeded', 'NodeLost'])
          : phase === 'Pending' && r.chance(0.05)
            ? 'NodeAffinity'
            : undefined,
      startTime: scheduled && r.chance(0.95) ? iso(Math.min(now, created + 1000 * r.int(0, 5))) : undefined,
      conditions: conditions(r, phase, created, now),
      containerStatuses: containers.map((c) => containerStatus(r, c.name, phase)),
      initContainerStatuses: withInit ? [initStatus(r, initPhase)] : undefined,
      ephemeralContainerStatuses: r.chance(0.1) ? [containerStatus(r, 'debug', r.pick(['Running', 'Failed', 'Pending']))] : undefined,
    },
  };
}

function initStatus(r: Random, phase: string): ContainerStatus {
  if (phase === 'Succeeded')
    return { name: 'init', restartCount: r.chance(0.8) ? 0 : r.int(1, 5), state: { terminated: { exitCode: 0, reason: 'Completed' } } };
  if (phase === 'Failed') return { name: 'init', restartCount: r.int(0, 5), state: terminated(r, true) };
  return { name: 'init', restartCount: r.int(0, 8), state: { waiting: { reason: r.pick(['PodInitializing', 'CrashLoopBackOff', 'ImagePullBackOff']) } } };
}

import { POD_LIFETIME_STATES } from '../../shared/strategies/pod-lifetime/schema.js';
import { LABEL_VALUES, NAMESPACES, OWNER_KINDS, STORAGE_CLASSES, THRESHOLDS } from './generate-cluster.js';
import type { Random } from './random.js';

// Descheduler policies spanning every argument kube-tidy accepts for PodLifeTime,
// RemoveFailedPods, RemovePodsHavingTooManyRestarts and DefaultEvictor, and the limits.
// Written as plain objects; the case carries them as JSON text, which both sides read as YAML.

type Args = Record<string, unknown>;
type Obj = Record<string, unknown>;

const COMMON_STATES = [
  'Succeeded',
  'Failed',
  'Pending',
  'Running',
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'Error',
  'OOMKilled',
  'Completed',
  'Evicted',
] as const;
const EXIT_CODES = [0, 1, 2, 3, 127, 128, 137, 143] as const;
const FAILED_REASONS = [
  'Error',
  'OOMKilled',
  'ContainerCannotRun',
  'StartError',
  'DeadlineExceeded',
  'Evicted',
  'NodeAffinity',
  'Shutdown',
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'Completed',
  'Failed',
] as const;

function namespaces(r: Random): Obj | undefined {
  if (!r.chance(0.25)) return undefined;
  return r.chance(0.5) ? { include: r.subset(NAMESPACES, 1, 3) } : { exclude: r.subset(NAMESPACES, 1, 2) };
}

function labelSelector(r: Random): Obj | undefined {
  if (!r.chance(0.2)) return undefined;
  const key = r.pick(Object.keys(LABEL_VALUES)) as keyof typeof LABEL_VALUES;
  return r.weighted([
    [{ matchLabels: { [key]: r.pick(LABEL_VALUES[key]) } }, 3],
    [{ matchExpressions: [{ key, operator: 'In', values: r.subset(LABEL_VALUES[key]) }] }, 2],
    [{ matchExpressions: [{ key, operator: 'NotIn', values: r.subset(LABEL_VALUES[key], 1, 1) }] }, 1],
    [{ matchExpressions: [{ key, operator: r.pick(['Exists', 'DoesNotExist']) }] }, 1],
  ] as const);
}

function exitCodes(r: Random, ranges: boolean): (number | string)[] {
  const codes: (number | string)[] = r.subset(EXIT_CODES, 1, 3);
  // kube-tidy's extension: ranges (a named difference; the oracle gets them expanded).
  if (ranges && r.chance(0.15)) codes.push(r.pick(['128-255', '1-2', '3-3']));
  return codes;
}

function conditionFilter(r: Random): Obj {
  const f: Obj = {};
  const c = r.pick([
    { type: 'Ready', status: 'False' },
    { type: 'Ready', status: 'False', reason: 'PodCompleted' },
    { reason: 'PodFailed' },
    { type: 'DisruptionTarget' },
    { type: 'ContainersReady', status: 'True' },
    { type: 'Initialized', status: 'False' },
    {},
  ]);
  Object.assign(f, c);
  if (r.chance(0.6) || Object.keys(f).length === 0) f.minTimeSinceLastTransitionSeconds = r.pick(THRESHOLDS);
  return f;
}

function podLifeTime(r: Random): Args {
  const a: Args = {};
  const parts = r.subset(['max', 'states', 'conditions', 'exitCodes'], 1, 3);
  if (parts.includes('max')) a.maxPodLifeTimeSeconds = r.pick(THRESHOLDS);
  // Mostly the states pods here show, so the rule selects something; any state at times.
  if (parts.includes('states')) a.states = r.subset(r.chance(0.7) ? COMMON_STATES : POD_LIFETIME_STATES, 1, 3);
  if (parts.includes('conditions')) a.conditions = Array.from({ length: r.int(1, 2) }, () => conditionFilter(r));
  if (parts.includes('exitCodes')) a.exitCodes = exitCodes(r, true);
  if (r.chance(0.2)) a.ownerKinds = r.chance(0.5) ? { include: r.subset(OWNER_KINDS, 1, 2) } : { exclude: r.subset(OWNER_KINDS, 1, 2) };
  if (r.chance(0.3)) a.includingInitContainers = r.chance(0.7);
  if (r.chance(0.2)) a.includingEphemeralContainers = r.chance(0.7);
  Object.assign(a, { namespaces: namespaces(r), labelSelector: labelSelector(r) });
  return a;
}

function removeFailedPods(r: Random): Args {
  const a: Args = {};
  if (r.chance(0.3)) a.reasons = r.subset(FAILED_REASONS, 1, 3);
  if (r.chance(0.3)) a.exitCodes = exitCodes(r, true);
  if (r.chance(0.2)) a.excludeOwnerKinds = r.subset(OWNER_KINDS, 1, 2);
  if (r.chance(0.8)) a.minPodLifetimeSeconds = r.pick(THRESHOLDS);
  if (r.chance(0.3)) a.includingInitContainers = r.chance(0.7);
  Object.assign(a, { namespaces: namespaces(r), labelSelector: labelSelector(r) });
  return a;
}

function tooManyRestarts(r: Random): Args {
  const a: Args = {
    podRestartThreshold: r.weighted([
      [1, 1],
      [r.int(2, 5), 3],
      [r.int(6, 30), 2],
    ] as const),
  };
  if (r.chance(0.3)) a.includingInitContainers = r.chance(0.7);
  if (r.chance(0.3)) a.states = r.subset(['Running', 'CrashLoopBackOff'], 1, 2);
  Object.assign(a, { namespaces: namespaces(r), labelSelector: labelSelector(r) });
  return a;
}

function defaultEvictor(r: Random): Args {
  const a: Args = {};
  if (r.chance(0.15)) a.labelSelector = labelSelector(r) ?? { matchLabels: { team: 'x' } };
  if (r.chance(0.15)) a.namespaceLabelSelector = { matchLabels: { env: r.pick(['prod', 'dev']) } };
  if (r.chance(0.25)) {
    a.priorityThreshold = r.chance(0.5)
      ? { value: r.pick([0, 100, 101, 1_000_000, 2_000_000_000]) }
      : { name: r.pick(['low', 'high', 'system-cluster-critical']) };
  }
  if (r.chance(0.15)) a.nodeFit = true;
  if (r.chance(0.1)) a.nodeSelector = r.pick(['zone=a', 'pool!=gpu']);
  if (r.chance(0.15)) a.minReplicas = r.int(0, 4);
  if (r.chance(0.15)) a.minPodAge = r.pick(['0s', '30s', '1m', '5m', '1h']);
  if (r.chance(0.15)) a.noEvictionPolicy = r.pick(['Preferred', 'Mandatory']);
  if (r.chance(0.5)) {
    const protections: Obj = {};
    if (r.chance(0.7)) protections.defaultDisabled = r.subset(['PodsWithLocalStorage', 'SystemCriticalPods', 'FailedBarePods', 'DaemonSetPods'], 1, 3);
    if (r.chance(0.5)) protections.extraEnabled = r.subset(['PodsWithPVC', 'PodsWithoutPDB', 'PodsWithResourceClaims'], 1, 2);
    if (r.chance(0.3)) protections.config = { PodsWithPVC: { protectedStorageClasses: r.subset(STORAGE_CLASSES, 1, 1).map((name) => ({ name })) } };
    if (protections.defaultDisabled || protections.extraEnabled) a.podProtections = protections;
    // Deprecated flags written out as false next to the new form: both must read them as unset.
    if (r.chance(0.05)) a.evictLocalStoragePods = false;
  } else {
    for (const flag of [
      'evictLocalStoragePods',
      'evictDaemonSetPods',
      'evictSystemCriticalPods',
      'ignorePvcPods',
      'ignorePodsWithoutPDB',
      'evictFailedBarePods',
    ]) {
      if (r.chance(0.25)) a[flag] = r.chance(0.7);
    }
  }
  return a;
}

const STRATEGIES = { PodLifeTime: podLifeTime, RemoveFailedPods: removeFailedPods, RemovePodsHavingTooManyRestarts: tooManyRestarts } as const;

function profile(r: Random, name: string): Obj {
  const enabled = r.subset(Object.keys(STRATEGIES), 1, 3);
  // Shuffle: the order a profile enables them is the order they run in.
  for (let i = enabled.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [enabled[i], enabled[j]] = [enabled[j]!, enabled[i]!];
  }
  const pluginConfig: Obj[] = [];
  if (r.chance(0.7)) pluginConfig.push({ name: 'DefaultEvictor', args: defaultEvictor(r) });
  for (const s of enabled) {
    // RemoveFailedPods runs on its defaults without a pluginConfig in kube-tidy (a named difference).
    if (s === 'RemoveFailedPods' && r.chance(0.1)) continue;
    pluginConfig.push({ name: s, args: STRATEGIES[s as keyof typeof STRATEGIES](r) });
  }
  return { name, pluginConfig, plugins: { deschedule: { enabled } } };
}

export function policy(r: Random): Obj {
  const p: Obj = {
    apiVersion: 'descheduler/v1alpha2',
    kind: 'DeschedulerPolicy',
    profiles: Array.from(
      {
        length: r.weighted([
          [1, 5],
          [2, 1],
        ] as const),
      },
      (_, i) => profile(r, `profile-${i}`),
    ),
  };
  if (r.chance(0.1)) p.nodeSelector = r.pick(['zone=a', 'pool=cpu', 'zone in (a,b)']);
  if (r.chance(0.25)) p.maxNoOfPodsToEvictPerNode = r.int(0, 3);
  if (r.chance(0.25)) p.maxNoOfPodsToEvictPerNamespace = r.int(0, 3);
  if (r.chance(0.25)) p.maxNoOfPodsToEvictTotal = r.int(0, 6);
  if (r.chance(0.05)) p.gracePeriodSeconds = r.int(0, 30);
  if (r.chance(0.03)) p.someFutureField = { enabled: true };
  if (r.chance(0.05)) breakPolicy(r, p);
  return p;
}

/** One mistake a user makes, so that both sides are seen refusing the same policies. */
function breakPolicy(r: Random, p: Obj): void {
  const profile = (p.profiles as Obj[])[0]! as { pluginConfig: { name: string; args: Args }[]; plugins: { deschedule: { enabled: string[] } } };
  const strategy = profile.pluginConfig.find((c) => c.name !== 'DefaultEvictor');
  let evictor = profile.pluginConfig.find((c) => c.name === 'DefaultEvictor');
  if (!evictor) profile.pluginConfig.unshift((evictor = { name: 'DefaultEvictor', args: {} }));
  const mistakes: (() => void)[] = [
    () => strategy && (strategy.args.namespaces = { include: ['batch'], exclude: ['web'] }),
    () => strategy && (strategy.args.labelSelector = { matchExpressions: [{ key: 'app', operator: 'In' }] }),
    () => strategy?.name === 'PodLifeTime' && (strategy.args.states = ['Bogus']),
    () => strategy?.name === 'PodLifeTime' && (strategy.args.conditions = [{}]),
    () => strategy?.name === 'PodLifeTime' && (strategy.args = { namespaces: { include: ['batch'] } }),
    () => strategy?.name === 'PodLifeTime' && (strategy.args.ownerKinds = { include: ['Job'], exclude: ['ReplicaSet'] }),
    () => strategy?.name === 'RemovePodsHavingTooManyRestarts' && (strategy.args.podRestartThreshold = 0),
    () => strategy?.name === 'RemovePodsHavingTooManyRestarts' && (strategy.args.states = ['Pending']),
    () => (evictor.args.priorityThreshold = { value: 10, name: 'low' }),
    () => (evictor.args.priorityThreshold = { value: 2_000_000_001 }),
    () => (evictor.args.priorityThreshold = { name: 'gold' }),
    () => (evictor.args.noEvictionPolicy = 'Sometimes'),
    () => (evictor.args.podProtections = { defaultDisabled: ['DaemonSetPods', 'DaemonSetPods'] }),
    () => (evictor.args.podProtections = { extraEnabled: ['PodsWithGPU'] }),
    () => (evictor.args.minPodAge = 'soon'),
    () => (evictor.args = { evictDaemonSetPods: true, podProtections: { extraEnabled: ['PodsWithPVC'] } }),
    () => (p.maxNoOfPodsToEvictTotal = -1),
    () => (profile.plugins.deschedule.enabled = [...profile.plugins.deschedule.enabled, 'NoSuchPlugin']),
  ];
  r.pick(mistakes)();
}

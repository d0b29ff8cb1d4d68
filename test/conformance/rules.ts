import type { Node, Pod } from '../../shared/model/objects.js';
import { isTerminal } from '../../shared/model/pod.js';
import { isReady } from '../../shared/evictor/node-fit.js';
import { parseSelectorString } from '../../shared/policy/selector-string.js';
import { compileLabelSelector } from '../../shared/policy/label-selector.js';
import type { Cluster } from './generate-cluster.js';

// The documented differences from the descheduler (docs/differences-from-descheduler.md), each as a NAMED rule the comparison applies. A rule never skips a case:
//
// - an EXCLUSION takes a pod out of judgement on both sides, decided from the input alone
//   (kube-tidy: the pod stays in the context, minReplicas and nodeFit still count it, but is
//   not judged; the oracle: the pod is marked terminating and loses the evict annotation, so
//   the descheduler's own filter skips it). Limits then count the same pods on both sides.
// - a POLICY rewrite gives one side the policy in the form it reads (exit-code ranges
//   expanded for the descheduler, ...), after checking that the other side accepts the original.
// - an ORDER rule says where the descheduler promises no order (compare sets) and, under
//   limits, checks kube-tidy's choice against the descheduler's unlimited selection instead.

export const ANNOTATION_EVICT = 'descheduler.alpha.kubernetes.io/evict';
export const PROTECTED_NAMESPACES = ['kube-system'];

export const RULES = {
  'protected-namespace': 'kube-tidy never touches pods in its protected namespaces (kube-system by default)',
  'evict-annotation-never-overrides-safety': 'the evict annotation does not make a terminating, mirror or static pod eligible in kube-tidy',
  'unscheduled-pod': 'kube-tidy judges pods bound to no node (stuck Pending pods); the descheduler lists pods node by node',
  'fewer-than-two-ready-nodes': 'the descheduler skips the whole cycle with fewer than 2 Ready nodes; kube-tidy needs no second node to delete or evict',
  'node-fit-skips-terminal-pods': 'nodeFit asks only of pods that are evicted: a deleted Succeeded/Failed pod is not rescheduled',
  'pdb-coverage-read':
    'PodsWithoutPDB: kube-tidy lets a pod a PodDisruptionBudget covers go; descheduler v0.36.0 protects every pod, its PDB lister being registered after its informers started (it never fills)',
  'ephemeral-volume-is-a-pvc': 'PodsWithPVC also protects pods with generic ephemeral volumes (their claim is a PVC)',
  'unknown-priority-class':
    'a priorityThreshold naming a PriorityClass the cluster lacks: the descheduler refuses the policy when it loads; kube-tidy (which validates offline) runs it and keeps every pod that threshold would judge',
  'exit-code-ranges': 'kube-tidy accepts exit-code ranges ("128-255"); the descheduler gets the same codes listed one by one',
  'plugin-without-pluginConfig': 'kube-tidy runs an enabled RemoveFailedPods without pluginConfig on its defaults; the descheduler refuses to start',
  'unknown-top-level-field': 'kube-tidy refuses an unknown top-level policy field; the descheduler ignores it',
  'order-free-strategy':
    'RemoveFailedPods and RemovePodsHavingTooManyRestarts act node by node in the descheduler (no cluster order); kube-tidy acts oldest / most restarts first over the whole cluster',
  'condition-transition-order':
    'PodLifeTime with a condition transition threshold: kube-tidy acts longest-in-condition first, the descheduler oldest-created first',
  'equal-creation-timestamps': 'pods created in the same second: the descheduler sorts unstably, kube-tidy keeps list order',
} as const;

export type RuleName = keyof typeof RULES;

type Obj = Record<string, unknown>;
type Profile = { name: string; pluginConfig: { name: string; args?: Obj }[]; plugins: { deschedule: { enabled: string[] } } };

const evictorArgs = (p: Profile): Obj => p.pluginConfig.find((c) => c.name === 'DefaultEvictor')?.args ?? {};

function protects(args: Obj, protection: string, deprecatedFlag: string, defaultOn: boolean): boolean {
  const pp = args.podProtections as { defaultDisabled?: string[]; extraEnabled?: string[] } | undefined;
  if (pp?.defaultDisabled?.length || pp?.extraEnabled?.length) {
    return defaultOn ? !pp.defaultDisabled?.includes(protection) : !!pp.extraEnabled?.includes(protection);
  }
  return defaultOn ? !args[deprecatedFlag] : !!args[deprecatedFlag];
}

/** The nodes the descheduler processes: Ready and inside the policy's nodeSelector. */
export function readyNodes(policy: Obj, nodes: readonly Node[]): Node[] {
  const text = policy.nodeSelector as string | undefined;
  const parsed = text ? parseSelectorString(text) : undefined;
  const selects = parsed === undefined ? () => true : typeof parsed === 'string' ? () => false : compileLabelSelector(parsed);
  return nodes.filter((n) => isReady(n) && selects(n.metadata.labels));
}

/** Which exclusion, if any, takes this pod out of judgement. */
export function exclusionFor(pod: Pod, policy: Obj, cluster: Pick<Cluster, 'nodes' | 'pdbs'>): RuleName | undefined {
  const profiles = policy.profiles as Profile[];
  const nodes = cluster.nodes;
  const a = pod.metadata.annotations ?? {};
  if (readyNodes(policy, nodes).length < 2) return 'fewer-than-two-ready-nodes';
  if (PROTECTED_NAMESPACES.includes(pod.metadata.namespace ?? '')) return 'protected-namespace';
  if (!pod.spec?.nodeName) return 'unscheduled-pod';
  const unsafe = pod.metadata.deletionTimestamp || a['kubernetes.io/config.mirror'] !== undefined || (a['kubernetes.io/config.source'] ?? 'api') !== 'api';
  if (a[ANNOTATION_EVICT] !== undefined && unsafe) return 'evict-annotation-never-overrides-safety';
  if (isTerminal(pod) && profiles.some((p) => evictorArgs(p).nodeFit === true)) return 'node-fit-skips-terminal-pods';
  if ((pod.spec.volumes ?? []).some((v) => v.ephemeral) && profiles.some((p) => protects(evictorArgs(p), 'PodsWithPVC', 'ignorePvcPods', false))) {
    return 'ephemeral-volume-is-a-pvc';
  }
  const covered = cluster.pdbs.some(
    (b) => b.metadata.namespace === pod.metadata.namespace && b.spec?.selector && compileLabelSelector(b.spec.selector)(pod.metadata.labels),
  );
  if (covered && a[ANNOTATION_EVICT] === undefined && profiles.some((p) => protects(evictorArgs(p), 'PodsWithoutPDB', 'ignorePodsWithoutPDB', false))) {
    return 'pdb-coverage-read';
  }
  return undefined;
}

/** The policy as the descheduler is given it, and the rules that rewrote it. */
export function oraclePolicy(policy: Obj): { policy: Obj; applied: RuleName[] } {
  const applied = new Set<RuleName>();
  const copy = structuredClone(policy) as Obj & { profiles: Profile[] };
  for (const p of copy.profiles) {
    for (const c of p.pluginConfig) {
      const codes = c.args?.exitCodes as (number | string)[] | undefined;
      if (!codes?.some((x) => typeof x === 'string')) continue;
      applied.add('exit-code-ranges');
      c.args!.exitCodes = [...new Set(codes.flatMap((x) => (typeof x === 'number' ? [x] : expand(x))))];
    }
    for (const s of p.plugins.deschedule.enabled) {
      if (p.pluginConfig.some((c) => c.name === s)) continue;
      applied.add('plugin-without-pluginConfig');
      p.pluginConfig.push({ name: s, args: {} });
    }
  }
  return { policy: copy, applied: [...applied] };
}

function expand(range: string): number[] {
  const [from, to] = range.split('-').map(Number) as [number, number];
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const KNOWN_TOP_LEVEL = new Set([
  'apiVersion',
  'kind',
  'profiles',
  'nodeSelector',
  'maxNoOfPodsToEvictPerNode',
  'maxNoOfPodsToEvictPerNamespace',
  'maxNoOfPodsToEvictTotal',
  'gracePeriodSeconds',
  'evictionFailureEventNotification',
  'metricsCollector',
  'metricsProviders',
  'prometheus',
]);

/** The policy without the top-level fields kube-tidy does not know (the descheduler ignores them). */
export function withoutUnknownTopLevel(policy: Obj): { policy: Obj; stripped: string[] } {
  const stripped = Object.keys(policy).filter((k) => !KNOWN_TOP_LEVEL.has(k));
  return { policy: Object.fromEntries(Object.entries(policy).filter(([k]) => KNOWN_TOP_LEVEL.has(k))), stripped };
}

/** Which order rule applies to a strategy run, if any: where the descheduler promises no order. */
export function orderRuleFor(strategy: string, args: Obj | undefined): RuleName | undefined {
  if (strategy === 'RemoveFailedPods' || strategy === 'RemovePodsHavingTooManyRestarts') return 'order-free-strategy';
  const conditions = (args?.conditions as Obj[] | undefined) ?? [];
  if (conditions.some((c) => c.minTimeSinceLastTransitionSeconds !== undefined)) return 'condition-transition-order';
  return undefined;
}

/** Profiles whose priorityThreshold names a class the cluster does not have. */
export function unknownPriorityClassProfiles(policy: Obj, classes: readonly string[]): string[] {
  return (policy.profiles as Profile[])
    .filter((p) => {
      const name = (evictorArgs(p).priorityThreshold as { name?: string } | undefined)?.name;
      return name !== undefined && !classes.includes(name);
    })
    .map((p) => p.name);
}

/** Whether that profile's threshold judges the pod (SystemCriticalPods on, no evict annotation). */
export function thresholdJudges(policy: Obj, profile: string, pod: Pod): boolean {
  const p = (policy.profiles as Profile[]).find((x) => x.name === profile);
  return !!p && protects(evictorArgs(p), 'SystemCriticalPods', 'evictSystemCriticalPods', true) && pod.metadata.annotations?.[ANNOTATION_EVICT] === undefined;
}

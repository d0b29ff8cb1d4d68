import { describe, expect, it } from 'vitest';
import { goWrittenPolicies } from '../../../infra/local/descheduler/e2e-policies-build.js';
import { effectiveProtections, type DefaultEvictorArgs } from '../../../shared/evictor/schema.js';
import { loadPolicyFrom } from '../../../shared/hosts/cli/input.js';
import { toDeschedulerPolicy } from '../../../shared/policy/normalize.js';

// The descheduler's e2e tests write their policy ConfigMaps with sigs.k8s.io/yaml.Marshal of
// the v0.36.0 Go types (infra/local/descheduler/e2epolicies builds the same values and prints
// that text). A descheduler user's ConfigMap is that text: kube-tidy must load each one through
// the path the CLI and the descheduler command read a policy (loadPolicyFrom), with no warning
// and no unsupported field, and its normalized policy must say what the Go struct said.

const FAILED_NS = 'e2e-testfailedpods';
const RESTARTS_NS = 'e2e-testtoomanyrestarts';
const DEFAULTS = ['PodsWithLocalStorage', 'SystemCriticalPods', 'FailedBarePods', 'DaemonSetPods'];
/** TestFailedPods' and TestLeaderElection's evictor: EvictLocalStoragePods on (Go omits the false flags). */
const LOCAL_STORAGE_EVICTOR = { args: { evictLocalStoragePods: true }, protections: ['SystemCriticalPods', 'FailedBarePods', 'DaemonSetPods'] };
const PLAIN_EVICTOR = { args: {}, protections: DEFAULTS };

interface Want {
  profile: string;
  strategy: string;
  args: Record<string, unknown>;
  evictor: { args: Record<string, unknown>; protections: string[] };
  gracePeriodSeconds?: number;
}

const failed = (args: Record<string, unknown>): Want => ({
  profile: 'RemoveFailedPodsProfile',
  strategy: 'RemoveFailedPods',
  args: { ...args, namespaces: { include: [FAILED_NS] } },
  evictor: LOCAL_STORAGE_EVICTOR,
});
const restarts = (podRestartThreshold: number): Want => ({
  profile: 'TooManyRestartsProfile',
  strategy: 'RemovePodsHavingTooManyRestarts',
  args: { podRestartThreshold, includingInitContainers: true, namespaces: { include: [RESTARTS_NS] } },
  evictor: LOCAL_STORAGE_EVICTOR,
  gracePeriodSeconds: 0,
});
const lifetime = (args: Record<string, unknown>, evictor = PLAIN_EVICTOR): Want => ({ profile: 'PodLifeTimeProfile', strategy: 'PodLifeTime', args, evictor });

/** What each Go struct says, by the id main.go prints it under. */
const WANT: Record<string, Want> = {
  'failed-pods-default-args': failed({ minPodLifetimeSeconds: 1 }),
  'failed-pods-reason-unmatched': failed({ minPodLifetimeSeconds: 1, reasons: ['ReasonDoesNotMatch'] }),
  'failed-pods-min-age-unmet': failed({ minPodLifetimeSeconds: 3600 }),
  'failed-pods-exclude-job-kind': failed({ minPodLifetimeSeconds: 1, excludeOwnerKinds: ['Job'] }),
  'too-many-restarts-10000': restarts(10000),
  'too-many-restarts-3': restarts(3),
  'leader-election-pod-lifetime': lifetime({ maxPodLifeTimeSeconds: 5, namespaces: { include: ['e2e-testleaderelection-a'] } }, LOCAL_STORAGE_EVICTOR),
  'pod-lifetime-namespaces-exclude': lifetime({ maxPodLifeTimeSeconds: 1, namespaces: { exclude: ['e2e-testnamespaceconstraintsexclude'] } }),
  'pod-lifetime-label-selector': lifetime({ maxPodLifeTimeSeconds: 1, labelSelector: { matchLabels: { test: 'podlifetime-evict' } } }),
  'pod-lifetime-states-failed-exclude-job': lifetime({ states: ['Failed'], ownerKinds: { exclude: ['Job'] } }),
  'pod-lifetime-states-succeeded-condition': lifetime({ states: ['Succeeded'], conditions: [{ reason: 'PodCompleted', status: 'True' }] }),
  'pod-lifetime-system-critical-threshold': lifetime(
    { maxPodLifeTimeSeconds: 1 },
    // EvictSystemCriticalPods lifts that protection and the threshold with it (the test expects every pod gone, whatever its priority).
    { args: { evictSystemCriticalPods: true, priorityThreshold: { value: 1000 } }, protections: ['PodsWithLocalStorage', 'FailedBarePods', 'DaemonSetPods'] },
  ),
  'pod-lifetime-daemonset': lifetime(
    { maxPodLifeTimeSeconds: 1 },
    { args: { evictDaemonSetPods: true }, protections: ['PodsWithLocalStorage', 'SystemCriticalPods', 'FailedBarePods'] },
  ),
  'pod-lifetime-threshold-priority-class-name': lifetime(
    { maxPodLifeTimeSeconds: 1 },
    { args: { priorityThreshold: { name: 'e2e-testthresholdpriority-highpriority' } }, protections: DEFAULTS },
  ),
  // The other nulls Go writes: `pluginConfig: null`, `args: null`. RemoveFailedPods' defaults.
  'no-plugin-config': { profile: 'DefaultsProfile', strategy: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 3600 }, evictor: PLAIN_EVICTOR },
  'evictor-args-null': { profile: 'DefaultsProfile', strategy: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 3600 }, evictor: PLAIN_EVICTOR },
};

const policies = goWrittenPolicies();

describe("the descheduler's e2e policies, as Go writes them", () => {
  it('are the cases this test knows, each once (a policy added to main.go needs its expectation here)', () => {
    expect(policies.map((p) => p.id).sort()).toEqual(Object.keys(WANT).sort());
  });

  it('are written the way Go writes them: null lists for the unused extension points, podProtections: {}, args without a type header', () => {
    for (const { id, policy } of policies) {
      expect(policy, id).toContain('    sort:\n      disabled: null\n      enabled: null\n');
      const nulls = { 'no-plugin-config': 'pluginConfig: null', 'evictor-args-null': 'args: null' }[id];
      expect(policy, id).toContain(nulls ?? 'podProtections: {}');
      expect(policy, id).not.toMatch(/^\s+(apiVersion|kind): .*Args$/m);
    }
  });

  it.each(policies)('$id loads without a warning and says what the Go struct said', ({ id, policy }) => {
    const want = WANT[id]!;
    // false: an unsupported plugin would be refused, not skipped with a warning.
    const { policy: loaded, warnings } = loadPolicyFrom(`${id}.yaml`, policy, false);
    expect(warnings).toEqual([]);
    expect(loaded.gracePeriodSeconds).toBe(want.gracePeriodSeconds);
    expect(loaded.limits).toEqual({ perNode: undefined, perNamespace: undefined, total: undefined });
    const normalized = toDeschedulerPolicy(loaded) as { profiles: { name: string; pluginConfig: { name: string; args: Record<string, unknown> }[] }[] };
    expect(normalized.profiles.map((p) => p.name)).toEqual([want.profile]);
    const [evictor, ...strategies] = normalized.profiles[0]!.pluginConfig;
    expect(strategies.map((s) => s.name)).toEqual([want.strategy]);
    expect(strategies[0]!.args).toMatchObject(want.args);
    expect(evictor!.args).toMatchObject(want.evictor.args);
    expect([...effectiveProtections(evictor!.args as DefaultEvictorArgs)].sort()).toEqual([...want.evictor.protections].sort());
  });
});

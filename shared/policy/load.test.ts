import { describe, expect, it } from 'vitest';
import { loadPolicy, loadPolicyText, MAX_POLICY_BYTES } from './load.js';
import { PolicyError } from './errors.js';
import { policyDoc } from '../../test/fixtures/policy.js';

function issues(raw: unknown, options = {}): string[] {
  try {
    loadPolicy(raw, options);
  } catch (e) {
    if (e instanceof PolicyError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  return [];
}

describe('loading a policy', () => {
  it('fills every default: RemoveFailedPods minPodLifetimeSeconds 3600, containers off, the evictor defaults', () => {
    const { policy } = loadPolicy(policyDoc([{ name: 'RemoveFailedPods' }]));
    expect(policy.profiles[0]?.strategies[0]?.args).toEqual({ minPodLifetimeSeconds: 3600, includingInitContainers: false });
    expect(policy.profiles[0]?.evictor).toMatchObject({ nodeFit: false, minReplicas: 0, noEvictionPolicy: 'Preferred' });
    expect(policy.limits).toEqual({ perNode: undefined, perNamespace: undefined, total: undefined });
  });

  it('reads the top-level eviction limits', () => {
    const { policy } = loadPolicy(
      policyDoc([{ name: 'RemoveFailedPods' }], { top: { maxNoOfPodsToEvictPerNode: 1, maxNoOfPodsToEvictPerNamespace: 2, maxNoOfPodsToEvictTotal: 3 } }),
    );
    expect(policy.limits).toEqual({ perNode: 1, perNamespace: 2, total: 3 });
  });

  it('reports every problem at once, each with its field path', () => {
    const raw = policyDoc(
      [
        { name: 'PodLifeTime', args: { states: ['Sleeping'], exitCodes: ['9-2'], namespaces: { include: ['a'], exclude: ['b'] } } },
        { name: 'RemovePodsHavingTooManyRestarts', args: { podRestartThreshold: 0, states: ['Pending'] } },
      ],
      { evictor: { minPodAge: 'soon', podProtections: { extraEnabled: ['DaemonSetPods'] } }, top: { maxNoOfPodsToEvictTotal: -1 } },
    );
    const got = issues(raw);
    expect(got).toEqual([
      'maxNoOfPodsToEvictTotal: Too small: expected number to be >=0',
      'profiles[0].pluginConfig[0].args.minPodAge: "soon" is not a duration such as "30m" or "1h30m"',
      'profiles[0].pluginConfig[0].args.podProtections.extraEnabled[0]: got "DaemonSetPods", expected one of "PodsWithPVC", "PodsWithoutPDB", "PodsWithResourceClaims"',
      expect.stringMatching(/^profiles\[0\]\.pluginConfig\[1\]\.args\.states\[0\]: got "Sleeping", expected one of "Running", "Pending", /),
      'profiles[0].pluginConfig[1].args.exitCodes[0]: "9-2" is not a range with FROM <= TO',
      'profiles[0].pluginConfig[1].args.namespaces: only one of include/exclude may be set',
      'profiles[0].pluginConfig[2].args.podRestartThreshold: Too small: expected number to be >=1',
      'profiles[0].pluginConfig[2].args.states[0]: got "Pending", expected one of "Running", "CrashLoopBackOff"',
    ]);
  });

  it.each([
    {
      name: 'a wrong apiVersion is named',
      raw: { ...policyDoc([{ name: 'RemoveFailedPods' }]), apiVersion: 'descheduler/v1alpha1' },
      want: 'apiVersion: got "descheduler/v1alpha1", expected one of "descheduler/v1alpha2"',
    },
    {
      name: 'a misspelt field is named',
      raw: { ...policyDoc([{ name: 'RemoveFailedPods' }]), maxNoOfPodsToEvictPerNodes: 1 },
      want: '(root): unknown field "maxNoOfPodsToEvictPerNodes"'.replace('(root)', ''),
    },
    {
      name: 'an unknown argument of a plugin is named',
      raw: policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifeTimeSeconds: 5 } }]),
      want: 'profiles[0].pluginConfig[0].args: unknown field "minPodLifeTimeSeconds"',
    },
    {
      name: 'PodLifeTime without any criterion is refused',
      raw: policyDoc([{ name: 'PodLifeTime', args: { namespaces: { include: ['a'] } } }]),
      want: 'profiles[0].pluginConfig[0].args: at least one of maxPodLifeTimeSeconds, states, conditions or exitCodes must be set',
    },
    {
      name: 'an empty condition filter is refused',
      raw: policyDoc([{ name: 'PodLifeTime', args: { conditions: [{}] } }]),
      want: 'profiles[0].pluginConfig[0].args.conditions[0]: at least one of type, status, reason or minTimeSinceLastTransitionSeconds must be set',
    },
    {
      name: 'a bad label selector operator is named',
      raw: policyDoc([
        { name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 1, labelSelector: { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] } } },
      ]),
      want: 'profiles[0].pluginConfig[0].args.labelSelector.matchExpressions[0].operator: got "Equals", expected one of "In", "NotIn", "Exists", "DoesNotExist"',
    },
    {
      name: 'an In expression without values is refused',
      raw: policyDoc([{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 1, labelSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } } }]),
      want: 'profiles[0].pluginConfig[0].args.labelSelector.matchExpressions[0].values: must be non-empty for operator In',
    },
    {
      name: 'deprecated evictor flags cannot be mixed with podProtections',
      raw: policyDoc([{ name: 'RemoveFailedPods' }], { evictor: { evictDaemonSetPods: true, podProtections: { extraEnabled: ['PodsWithPVC'] } } }),
      want: 'profiles[0].pluginConfig[0].args.evictDaemonSetPods: deprecated field evictDaemonSetPods cannot be used alongside podProtections.extraEnabled/defaultDisabled',
    },
    // Found by test/conformance: the descheduler refuses these when it loads the policy.
    {
      name: 'a priority threshold above system-critical is refused',
      raw: policyDoc([{ name: 'RemoveFailedPods' }], { evictor: { priorityThreshold: { value: 2_000_000_001 } } }),
      want: 'profiles[0].pluginConfig[0].args.priorityThreshold.value: the priority threshold cannot be greater than 2000000000 (system-critical)',
    },
    {
      name: 'a protection listed twice is refused',
      raw: policyDoc([{ name: 'RemoveFailedPods' }], { evictor: { podProtections: { defaultDisabled: ['DaemonSetPods', 'DaemonSetPods'] } } }),
      want: 'profiles[0].pluginConfig[0].args.podProtections.defaultDisabled: contains duplicate entries',
    },
    {
      name: 'a threshold with both value and name is refused',
      raw: policyDoc([{ name: 'RemoveFailedPods' }], { evictor: { priorityThreshold: { value: 1, name: 'x' } } }),
      want: 'profiles[0].pluginConfig[0].args.priorityThreshold: only one of value/name may be set',
    },
    {
      name: 'an enabled strategy whose defaults are not enough is named',
      raw: { ...policyDoc([]), profiles: [{ name: 'p', plugins: { deschedule: { enabled: ['PodLifeTime'] } } }] },
      want: expect.stringMatching(/^profiles\[0\]\.plugins\.deschedule\.enabled\[0\]: "PodLifeTime" has no pluginConfig/),
    },
    {
      name: 'a bad top-level nodeSelector is named',
      raw: policyDoc([{ name: 'RemoveFailedPods' }], { top: { nodeSelector: 'a in b' } }),
      want: 'nodeSelector: "a in b" is not a selector requirement (key=value, key!=value, key in (a,b), key notin (a,b), key, !key)',
    },
    {
      name: 'a type header naming another kind is refused',
      raw: policyDoc([{ name: 'RemoveFailedPods', args: { kind: 'PodLifeTimeArgs' } }]),
      want: 'profiles[0].pluginConfig[0].args.kind: got "PodLifeTimeArgs", expected "RemoveFailedPodsArgs"',
    },
  ])('$name', ({ raw, want }) => {
    expect(issues(raw)).toContainEqual(want);
  });

  it('refuses an unsupported plugin, naming it and listing the supported ones', () => {
    const raw = { ...policyDoc([{ name: 'RemoveFailedPods' }]) } as Record<string, unknown>;
    (raw.profiles as Record<string, unknown>[])[0]!.plugins = { deschedule: { enabled: ['RemoveFailedPods'] }, balance: { enabled: ['LowNodeUtilization'] } };
    expect(issues(raw)).toEqual([
      'profiles[0].plugins.balance.enabled[0]: plugin "LowNodeUtilization" is not supported; supported plugins: PodLifeTime, RemoveFailedPods, RemovePodsHavingTooManyRestarts, PodTTL, DefaultEvictor',
    ]);
  });

  it('with allowUnsupported, skips the unsupported plugin with a warning and runs the rest', () => {
    const raw = policyDoc([{ name: 'RemoveFailedPods' }, { name: 'RemoveDuplicates', args: { excludeOwnerKinds: ['ReplicaSet'] } }]);
    const { policy, warnings } = loadPolicy(raw, { allowUnsupported: true });
    expect(policy.profiles[0]?.strategies.map((s) => s.name)).toEqual(['RemoveFailedPods']);
    expect(warnings).toContainEqual(expect.stringContaining('plugin "RemoveDuplicates" is not supported'));
  });

  it('warns about settings it accepts but does not use', () => {
    const { warnings } = loadPolicy(policyDoc([{ name: 'RemoveFailedPods' }], { top: { metricsCollector: { enabled: true } } }));
    expect(warnings).toEqual(['metricsCollector: accepted for compatibility and ignored (kube-tidy does not use it)']);
  });

  it('accepts deprecated evictor flags written as false next to podProtections, as the descheduler does', () => {
    // Found by test/conformance: the descheduler's validation only counts flags set to true.
    const raw = policyDoc([{ name: 'RemoveFailedPods' }], { evictor: { evictLocalStoragePods: false, podProtections: { extraEnabled: ['PodsWithPVC'] } } });
    expect(issues(raw)).toEqual([]);
  });

  it('reads JSON as well as YAML and reports unparsable text', () => {
    expect(loadPolicyText(JSON.stringify(policyDoc([{ name: 'RemoveFailedPods' }]))).policy.profiles).toHaveLength(1);
    expect(() => loadPolicyText('profiles: [\n')).toThrow(/not valid YAML or JSON/);
  });

  it('refuses a text past MAX_POLICY_BYTES in UTF-8 (a ConfigMap key, a body), short strings of wide characters included', () => {
    const valid = JSON.stringify(policyDoc([{ name: 'RemoveFailedPods' }]));
    expect(() => loadPolicyText(`${valid}\n#${'x'.repeat(MAX_POLICY_BYTES)}`)).toThrow(/larger than 1 MiB/);
    // 400,000 characters, 1.2 MB: the length alone would pass.
    expect(() => loadPolicyText(`${valid}\n#${'€'.repeat(400_000)}`)).toThrow(/larger than 1 MiB/);
    expect(loadPolicyText(`${valid}\n#${'€'.repeat(300_000)}`).policy.profiles).toHaveLength(1);
  });
});

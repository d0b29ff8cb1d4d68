import { describe, expect, it } from 'vitest';
import { loadPolicyText } from './load.js';
import { PolicyError } from './errors.js';

// A policy as sigs.k8s.io/yaml.Marshal writes the descheduler's own v1alpha2 types (the form of
// its e2e tests' policy ConfigMaps): unused extension points as {enabled: null, disabled: null},
// `podProtections: {}`, a priority threshold with its unset half written as "" or null. The
// whole set of the e2e tests' policies, produced by Go, is test/conformance/drop-in/.
const goWritten = (evictorArgs: string, pluginConfig = '') => `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
gracePeriodSeconds: 0
profiles:
- name: PodLifeTimeProfile
  pluginConfig:${
    pluginConfig === 'null'
      ? ' null'
      : `
  - args:
      maxPodLifeTimeSeconds: 5
      namespaces:
        include:
        - e2e-testleaderelection-a
    name: PodLifeTime
  - args:
${evictorArgs}
    name: DefaultEvictor`
  }
  plugins:
    balance:
      disabled: null
      enabled: null
    deschedule:
      disabled: null
      enabled:
      - ${pluginConfig === 'null' ? 'RemoveFailedPods' : 'PodLifeTime'}
    filter:
      disabled: null
      enabled:
      - DefaultEvictor
    preevictionfilter:
      disabled: null
      enabled: null
    presort:
      disabled: null
      enabled: null
    sort:
      disabled: null
      enabled: null
`;

const problems = (text: string): string[] => {
  try {
    loadPolicyText(text);
    return [];
  } catch (e) {
    if (e instanceof PolicyError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
};

describe('a policy as Go writes it', () => {
  it('loads without a warning: null plugin lists are empty lists, podProtections: {} is the defaults', () => {
    const { policy, warnings } = loadPolicyText(goWritten('      evictLocalStoragePods: true\n      podProtections: {}'));
    expect(warnings).toEqual([]);
    expect(policy.gracePeriodSeconds).toBe(0);
    expect(policy.profiles[0]!.strategies).toEqual([
      { name: 'PodLifeTime', args: expect.objectContaining({ maxPodLifeTimeSeconds: 5, namespaces: { include: ['e2e-testleaderelection-a'] } }) },
    ]);
    expect(policy.profiles[0]!.evictor).toMatchObject({ evictLocalStoragePods: true, podProtections: { defaultDisabled: [], extraEnabled: [] } });
  });

  it('a profile without pluginConfig is written `pluginConfig: null`: its strategy runs with its defaults', () => {
    const { policy, warnings } = loadPolicyText(goWritten('', 'null'));
    expect(warnings).toEqual([]);
    expect(policy.profiles[0]!.strategies.map((s) => s.name)).toEqual(['RemoveFailedPods']);
  });

  it.each([
    { written: 'name: ""\n        value: 1000', threshold: { value: 1000 } },
    { written: 'name: high\n        value: null', threshold: { name: 'high' } },
  ])('a priority threshold written $written keeps only its set half: $threshold', ({ written, threshold }) => {
    const { policy, warnings } = loadPolicyText(goWritten(`      podProtections: {}\n      priorityThreshold:\n        ${written}`));
    expect(warnings).toEqual([]);
    expect(policy.profiles[0]!.evictor.priorityThreshold).toEqual(threshold);
  });

  it('a threshold with both halves set is still refused, as the descheduler refuses it', () => {
    expect(problems(goWritten('      priorityThreshold:\n        name: high\n        value: 1000'))).toEqual([
      'profiles[0].pluginConfig[1].args.priorityThreshold: only one of value/name may be set',
    ]);
  });

  it('an extension point that is not a list is still refused', () => {
    expect(problems(goWritten('      podProtections: {}').replace('enabled: null\n    deschedule', 'enabled: 3\n    deschedule'))).toEqual([
      'profiles[0].plugins.balance.enabled: got 3, expected array',
    ]);
  });
});

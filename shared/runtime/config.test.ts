import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from './config.js';

describe('runtime configuration', () => {
  it('fills defaults around a policy file', () => {
    expect(readConfig({ POLICY_FILE: 'p.yaml' })).toMatchObject({
      POLICY_FILE: 'p.yaml',
      PROTECTED_NAMESPACES: ['kube-system'],
      DRY_RUN: false,
      RECORD_EVENTS: true,
      SWEEP_PAGE_SIZE: 500,
    });
  });

  it.each([
    { name: 'no policy source', env: {}, problem: 'POLICY_FILE: set POLICY_FILE (a policy file) or POLICY_CONFIGMAP (namespace/name)' },
    {
      name: 'two policy sources',
      env: { POLICY_FILE: 'a', POLICY_CONFIGMAP: 'ns/cm' },
      problem: 'POLICY_FILE: set only one of POLICY_FILE and POLICY_CONFIGMAP',
    },
    { name: 'a ConfigMap reference without a namespace', env: { POLICY_CONFIGMAP: 'cm' }, problem: 'POLICY_CONFIGMAP: expected namespace/name' },
    { name: 'a non-boolean DRY_RUN', env: { POLICY_FILE: 'a', DRY_RUN: 'maybe' }, problem: 'DRY_RUN' },
    { name: 'a zero page size', env: { POLICY_FILE: 'a', SWEEP_PAGE_SIZE: '0' }, problem: 'SWEEP_PAGE_SIZE' },
  ])('refuses $name, naming the variable', ({ env, problem }) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    try {
      readConfig(env);
    } catch (e) {
      expect((e as ConfigError).problems.join('\n')).toContain(problem);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from './config.js';

describe('runtime configuration', () => {
  it('fills defaults around a policy file', () => {
    expect(readConfig({ POLICY_FILE: 'p.yaml' })).toMatchObject({
      POLICY_FILE: 'p.yaml',
      PROTECTED_NAMESPACES: ['kube-system'],
      DRY_RUN: false,
      RECORD_EVENTS: true,
      REQUEST_TIMEOUT_SECONDS: 20,
    });
  });

  it("leaves a family's variables to the family: a sweep's paging and budget are pod cleanup's (cleanup/config.ts)", () => {
    const c = readConfig({ POLICY_FILE: 'a', SWEEP_PAGE_SIZE: '0', SWEEP_TIME_BUDGET_SECONDS: 'x', SWEEP_CONCURRENCY: '9999' });
    expect(Object.keys(c).filter((k) => k.startsWith('SWEEP_'))).toEqual([]);
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
    { name: 'a zero request timeout', env: { POLICY_FILE: 'a', REQUEST_TIMEOUT_SECONDS: '0' }, problem: 'REQUEST_TIMEOUT_SECONDS' },
  ])('refuses $name, naming the variable', ({ env, problem }) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    try {
      readConfig(env);
    } catch (e) {
      expect((e as ConfigError).problems.join('\n')).toContain(problem);
    }
  });
});

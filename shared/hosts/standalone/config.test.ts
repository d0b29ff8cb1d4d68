import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/env.js';
import { readStandaloneConfig } from './config.js';

const base = { STANDALONE_FUNCTIONS: 'sweep', POD_NAME: 'kube-tidy-0', POD_NAMESPACE: 'kube-tidy' };

describe('standalone configuration', () => {
  it('takes the defaults: a 15 s Lease renewed within 10 s, tried every 2 s', () => {
    expect(readStandaloneConfig(base)).toMatchObject({
      LEASE_NAME: 'kube-tidy-standalone',
      LEASE_DURATION_SECONDS: 15,
      LEASE_RENEW_DEADLINE_SECONDS: 10,
      LEASE_RETRY_PERIOD_SECONDS: 2,
    });
  });

  it('refuses names that would reshape the Lease URL, naming the variable', () => {
    expect(() => readStandaloneConfig({ ...base, LEASE_NAME: '../secrets' })).toThrow(ConfigError);
    expect(() => readStandaloneConfig({ ...base, LEASE_NAME: '../secrets' })).toThrow(/LEASE_NAME: /);
    expect(() => readStandaloneConfig({ ...base, POD_NAMESPACE: 'Kube_Tidy' })).toThrow(/POD_NAMESPACE: /);
  });

  it('says a required variable is not set, rather than what type it expected', () => {
    const { POD_NAME: _, ...env } = base;
    expect(() => readStandaloneConfig(env)).toThrow(/POD_NAME: not set \(required\)/);
  });

  it("reads the chart's selectors, and refuses one that would reshape the selector string, with its path", () => {
    const selectors = {
      namespaces: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
      Pod: { matchLabels: { app: 'batch' } },
    };
    expect(readStandaloneConfig({ ...base, STANDALONE_SELECTORS: JSON.stringify(selectors) }).STANDALONE_SELECTORS).toEqual(selectors);
    expect(() => readStandaloneConfig({ ...base, STANDALONE_SELECTORS: JSON.stringify({ Pod: { matchLabels: { app: 'a,b!=c' } } }) })).toThrow(
      /STANDALONE_SELECTORS\.Pod\.matchLabels\.app: not a label key or value/,
    );
    expect(() =>
      readStandaloneConfig({ ...base, STANDALONE_SELECTORS: JSON.stringify({ namespaces: { matchExpressions: [{ key: 'k', operator: 'Like' }] } }) }),
    ).toThrow(/STANDALONE_SELECTORS\.namespaces\.matchExpressions\.0\.operator: /);
  });

  it('refuses timings where a leader could act past its Lease', () => {
    expect(() => readStandaloneConfig({ ...base, LEASE_RENEW_DEADLINE_SECONDS: '20' })).toThrow(
      /LEASE_RENEW_DEADLINE_SECONDS: need LEASE_RETRY_PERIOD_SECONDS < LEASE_RENEW_DEADLINE_SECONDS < LEASE_DURATION_SECONDS/,
    );
  });
});

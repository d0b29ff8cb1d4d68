import { describe, expect, it } from 'vitest';
import { readEvacuationConfig } from './config.js';

describe('evacuation configuration', () => {
  it('keeps its ledger in KUBE_TIDY_NAMESPACE (the manifests and the chart set it), unless EVACUATION_NAMESPACE says otherwise, else kube-tidy', () => {
    expect(readEvacuationConfig({}).namespace).toBe('kube-tidy');
    expect(readEvacuationConfig({ KUBE_TIDY_NAMESPACE: 'ops' }).namespace).toBe('ops');
    expect(readEvacuationConfig({ KUBE_TIDY_NAMESPACE: 'ops', EVACUATION_NAMESPACE: 'ledger' }).namespace).toBe('ledger');
  });
});

import { describe, expect, it } from 'vitest';
import { readEvacuationConfig } from './config.js';

describe('evacuation configuration', () => {
  it('keeps its ledger in KUBE_TIDY_NAMESPACE (the manifests and the chart set it), unless EVACUATION_NAMESPACE says otherwise, else kube-tidy', () => {
    expect(readEvacuationConfig({}).namespace).toBe('kube-tidy');
    expect(readEvacuationConfig({ KUBE_TIDY_NAMESPACE: 'ops' }).namespace).toBe('ops');
    expect(readEvacuationConfig({ KUBE_TIDY_NAMESPACE: 'ops', EVACUATION_NAMESPACE: 'ledger' }).namespace).toBe('ledger');
  });

  it('bounds the wait for an EvictionRequest controller: 60 s by default, half a shorter timeout, never at or past the timeout', () => {
    expect(readEvacuationConfig({}).settings.requestAnswerMs).toBe(60_000);
    expect(readEvacuationConfig({ EVACUATION_TIMEOUT_SECONDS: '30' }).settings.requestAnswerMs).toBe(15_000);
    expect(readEvacuationConfig({ EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS: '2.5' }).settings.requestAnswerMs).toBe(2500);
    expect(() => readEvacuationConfig({ EVACUATION_TIMEOUT_SECONDS: '30', EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS: '30' })).toThrow(
      /EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS: must be below EVACUATION_TIMEOUT_SECONDS \(30\)/,
    );
    expect(() => readEvacuationConfig({ EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS: '0' })).toThrow(/EVACUATION_EVICTION_REQUEST_ANSWER_SECONDS/);
  });
});

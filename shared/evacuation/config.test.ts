import { describe, expect, it } from 'vitest';
import { readEvacuationConfig } from './config.js';

describe('evacuation configuration', () => {
  it("looks for the previous release's slots in KUBE_TIDY_NAMESPACE (the manifests and the chart set it), unless EVACUATION_NAMESPACE says otherwise, else kube-tidy", () => {
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

  it("takes a tick's budget from EVACUATION_TICK_BUDGET_SECONDS, else from the sweep's SWEEP_TIME_BUDGET_SECONDS (as before it had its own), else 50 s", () => {
    expect(readEvacuationConfig({}).tickBudgetMs).toBe(50_000);
    expect(readEvacuationConfig({ SWEEP_TIME_BUDGET_SECONDS: '20' }).tickBudgetMs).toBe(20_000);
    expect(readEvacuationConfig({ EVACUATION_TICK_BUDGET_SECONDS: '30' }).tickBudgetMs).toBe(30_000);
    expect(readEvacuationConfig({ SWEEP_TIME_BUDGET_SECONDS: '20', EVACUATION_TICK_BUDGET_SECONDS: '30' }).tickBudgetMs).toBe(30_000);
  });

  it.each([
    { env: { EVACUATION_TICK_BUDGET_SECONDS: '0' }, names: 'EVACUATION_TICK_BUDGET_SECONDS' },
    { env: { EVACUATION_TICK_BUDGET_SECONDS: 'soon' }, names: 'EVACUATION_TICK_BUDGET_SECONDS' },
    { env: { SWEEP_TIME_BUDGET_SECONDS: '-5' }, names: 'SWEEP_TIME_BUDGET_SECONDS' },
  ])('refuses a tick budget that is not a positive whole number of seconds, naming the variable it came from: $env', ({ env, names }) => {
    expect(() => readEvacuationConfig(env)).toThrow(new RegExp(`^invalid configuration:\\n  ${names}: `));
  });
});

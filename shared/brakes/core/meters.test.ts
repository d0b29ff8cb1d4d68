import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../policy/load.js';
import { counterOf, metersOf, scopeKey, type Meter, type Subject, describeMeter } from './meters.js';

const W = 15 * 60_000;
const T0 = Date.UTC(2026, 10, 25, 12, 0, 0); // on a 15-minute boundary
const meter = (scope: Meter['scope'], kinds?: Meter['kinds']): Meter => ({ scope, max: 1, windowMs: W, name: 'm', ...(kinds ? { kinds } : {}) });
const pod: Subject = { namespace: 'ml', node: 'n1', owner: 'ml/ReplicaSet/web' };
const job: Subject = { kind: 'Job', namespace: 'ml', owner: 'ml/CronJob/nightly' };
const base = { apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', profiles: [{ name: 'p', pluginConfig: [], plugins: {} }] };

describe('counters per kind', () => {
  it("a pod's counters are keyed as before kinds existed, so a ledger written then reads the same", () => {
    // The literal keys a ledger of an earlier release holds.
    expect(counterOf(meter('cluster'), pod, T0)).toBe(`cluster|${W}|${T0}|`);
    expect(counterOf(meter('namespace'), pod, T0)).toBe(`namespace|${W}|${T0}|ml`);
    expect(counterOf(meter('node'), pod, T0)).toBe(`node|${W}|${T0}|n1`);
    expect(counterOf(meter('owner'), pod, T0)).toBe(`owner|${W}|${T0}|ml/ReplicaSet/web`);
    // A meter that names pods explicitly charges the same counters.
    for (const scope of ['cluster', 'namespace', 'node', 'owner'] as const)
      expect(counterOf(meter(scope, ['Pod']), pod, T0)).toBe(counterOf(meter(scope), pod, T0));
  });

  it("an object's counter is keyed by its kind: a Job is never charged to a pod's counter", () => {
    expect(counterOf(meter('cluster', ['Job']), job, T0)).toBe(`cluster|${W}|${T0}|Job:`);
    expect(counterOf(meter('namespace', ['Job']), job, T0)).toBe(`namespace|${W}|${T0}|Job:ml`);
    expect(counterOf(meter('owner', ['Job']), job, T0)).toBe(`owner|${W}|${T0}|Job:ml/CronJob/nightly`);
    expect(scopeKey('cluster', job)).not.toBe(scopeKey('cluster', pod));
  });

  it('a meter counts only its kinds; absent kinds mean pods', () => {
    expect(counterOf(meter('cluster'), job, T0), 'a pod meter does not count a Job').toBeUndefined();
    expect(counterOf(meter('cluster', ['Job']), pod, T0), 'a Job meter does not count a pod').toBeUndefined();
    expect(counterOf(meter('cluster', ['PersistentVolumeClaim']), job, T0)).toBeUndefined();
    // Counting two kinds: each on its own counter, never one shared unit.
    const both = meter('cluster', ['Pod', 'Job']);
    expect(counterOf(both, pod, T0)).toBe(`cluster|${W}|${T0}|`);
    expect(counterOf(both, job, T0)).toBe(`cluster|${W}|${T0}|Job:`);
  });

  it('a scope that does not apply to an object charges nothing: a Job is on no node, a bare claim has no owner', () => {
    expect(counterOf(meter('node', ['Job']), job, T0)).toBeUndefined();
    expect(counterOf(meter('owner', ['PersistentVolumeClaim']), { kind: 'PersistentVolumeClaim', namespace: 'ml' }, T0)).toBeUndefined();
  });

  it('a Workload is charged under its own kind, to the owner that goes (its Job)', () => {
    const wl: Subject = { kind: 'Workload', namespace: 'ml', owner: 'ml/Job/train' };
    expect(counterOf(meter('owner', ['Workload']), wl, T0)).toBe(`owner|${W}|${T0}|Workload:ml/Job/train`);
  });

  it("the descheduler's limits count pods only; a rate counts its kinds, pods by default", () => {
    const { policy } = loadPolicy({
      ...base,
      maxNoOfPodsToEvictTotal: 0,
      maxNoOfPodsToEvictPerNamespace: 2,
      kubeTidy: {
        brakes: {
          rates: [
            { max: 1, per: '1h', kinds: ['Job'] },
            { max: 5, per: '10m' },
          ],
        },
      },
    });
    const meters = metersOf(policy);
    expect(meters.map((m) => [m.name, m.kinds])).toEqual([
      ['maxNoOfPodsToEvictTotal', ['Pod']],
      ['maxNoOfPodsToEvictPerNamespace', ['Pod']],
      ['kubeTidy.brakes.rates[0]', ['Job']],
      ['kubeTidy.brakes.rates[1]', ['Pod']],
    ]);
    // A pods' total of 0 charges nothing for a Job: only the Job rate applies to it.
    expect(meters.flatMap((m) => counterOf(m, job, T0) ?? [])).toEqual([`cluster|3600000|${Math.floor(T0 / 3_600_000) * 3_600_000}|Job:`]);
  });
});

describe('describeMeter', () => {
  const rate = { scope: 'namespace' as const, max: 1, windowMs: 3_600_000, name: 'kubeTidy.brakes.rates[0]', kinds: ['Job' as const] };

  it('names the kind and the namespace as a person reads them, not the counter key', () => {
    expect(describeMeter(rate, { kind: 'Job', namespace: 'ml' })).toBe('kubeTidy.brakes.rates[0] (1 Job removals per 1h in namespace ml)');
  });

  it("says a pod's as before", () => {
    expect(describeMeter({ ...rate, kinds: ['Pod'] }, { namespace: 'ml' })).toBe('kubeTidy.brakes.rates[0] (1 per 1h in namespace ml)');
  });
});

import type { V1ConfigMap } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { emptyLedger, type LedgerState } from '../../../shared/brakes/core/ledger.js';
import type { Meter, Subject } from '../../../shared/brakes/core/meters.js';
import { Brakes, brakeSetOf, type Take } from '../../../shared/brakes/io/brakes.js';
import type { ClusterWriter } from '../../../shared/kube/writer.js';
import { MAX_VALUES, OTHER } from '../../../shared/metrics/bound.js';
import { metricsExposition } from '../../../shared/metrics/exposition.js';
import { observeBudgets } from '../../../shared/brakes/io/budget-gauge.js';
import { observeDeferral } from '../../../shared/metrics/observe.js';
import { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import { loadPolicy } from '../../../shared/policy/load.js';
import { startOtlpReceiver } from '../../fixtures/metrics/otlp-receiver.js';
import { checkMetrics } from '../../fixtures/metrics/promcheck.js';

// kube_tidy_budget_remaining: what the budgets of the policy still allow, as the shared ledger
// holds it after each read or write of Brakes (shared/brakes/io/brakes.ts), against an
// in-memory API server that serialises writes by resourceVersion as the real one does.

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0); // on an hour boundary
const M = 60_000;

/** The ledger's ConfigMap, kept as an API server keeps it: a write at a stale resourceVersion conflicts. */
function fakeCluster() {
  let cm: V1ConfigMap | undefined;
  let rv = 0;
  /** Ledger reads and writes sent (what the client middleware would count: request-tally.ts). */
  const calls = { n: 0 };
  const store = (data: Record<string, string>): V1ConfigMap =>
    (cm = {
      metadata: {
        name: 'kube-tidy-brakes',
        resourceVersion: String(++rv),
        // As the API server records kube-tidy's write (the ledger trusts only those: kube/written-by.ts).
        managedFields: [
          { manager: 'kube-tidy', operation: 'Update', fieldsV1: { 'f:data': Object.fromEntries(Object.keys(data).map((k) => [`f:${k}`, {}])) } },
        ],
      },
      data,
    });
  const core = {
    readNamespacedConfigMap: async () => {
      calls.n++;
      if (!cm) throw Object.assign(new Error('not found'), { code: 404, body: '{"reason":"NotFound"}' });
      return structuredClone(cm);
    },
  } as never;
  const writer = {
    writeConfigMap: async (_ns: string, _name: string, seen: V1ConfigMap | undefined, data: Record<string, string>) => {
      calls.n++;
      if ((seen?.metadata?.resourceVersion ?? undefined) !== cm?.metadata?.resourceVersion) return false;
      return structuredClone(store(data));
    },
    createNamespace: async () => 'exists',
    recordNamespaceEvent: async () => undefined,
  } as unknown as ClusterWriter;
  return { core, writer, calls, store };
}

// maxNoOfPodsToEvictTotal 10 and ...PerNamespace 3 per 15 minutes, and at most 2 per hour per owner.
const policy = loadPolicy({
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  maxNoOfPodsToEvictTotal: 10,
  maxNoOfPodsToEvictPerNamespace: 3,
  profiles: [{ name: 'p', pluginConfig: [], plugins: {} }],
  kubeTidy: { brakes: { rates: [{ max: 2, per: '1h', scope: 'owner' }] } },
}).policy;
const set = brakeSetOf(policy);

const web: Subject = { namespace: 'ml', node: 'n1', owner: 'ml/ReplicaSet/web' };
const bare: Subject = { namespace: 'ml', node: 'n1' };

/** Every kube_tidy_budget_remaining series of a scrape, as `budget scope key` -> value. */
async function remaining(): Promise<Record<string, number>> {
  const body = (await metricsExposition(metrics)).body;
  const out: Record<string, number> = {};
  for (const m of body.matchAll(/^kube_tidy_budget_remaining\{budget="([^"]*)",scope="([^"]*)",key="([^"]*)"\} (\S+)$/gm))
    out[`${m[1]} ${m[2]} ${m[3]}`] = Number(m[4]);
  return out;
}

const ticket = (t: Take) => {
  if (!('ticket' in t)) throw new Error(`deferred: ${t.deferred.why}`);
  return t.ticket;
};

/** The process's recorder (one per test here), which its brakes record into. */
let metrics: MetricsRecorder;
beforeEach(() => {
  metrics = new MetricsRecorder();
});
afterEach(async () => {
  await metrics.shutdown();
});

describe('the budget gauge, from the ledger', () => {
  it('after a reservation: the units an instance reserved count as used until it gives them back', async () => {
    const cluster = fakeCluster();
    let now = T0;
    const a = new Brakes({ ...cluster, metrics, namespace: 'kube-tidy', dryRun: false, now: () => now, holder: 'a' });
    const t = ticket(await a.take(set, web));
    // One removal and the event path's chunk: a quarter of what is left of the total (2), none
    // of the namespace's 2 or the owner's 1 left.
    expect(await remaining()).toEqual({
      'maxNoOfPodsToEvictTotal cluster ': 7,
      'maxNoOfPodsToEvictPerNamespace namespace ml': 2,
      'kubeTidy.brakes.rates[0] owner ml/ReplicaSet/web': 1,
    });
    // Removed, settled: the chunk goes back, the removal stays spent.
    a.done(t, true);
    now += 1_000;
    await a.settle();
    expect(await remaining()).toEqual({
      'maxNoOfPodsToEvictTotal cluster ': 9,
      'maxNoOfPodsToEvictPerNamespace namespace ml': 2,
      'kubeTidy.brakes.rates[0] owner ml/ReplicaSet/web': 1,
    });
    a.close();
  });

  it('after a deferral: the budget that deferred shows 0, beside the deferred counter', async () => {
    const cluster = fakeCluster();
    const now = T0 + 3 * M;
    const a = new Brakes({ ...cluster, metrics, namespace: 'kube-tidy', dryRun: false, now: () => now, holder: 'a' });
    const b = new Brakes({ ...cluster, metrics, namespace: 'kube-tidy', dryRun: false, now: () => now, holder: 'b' });
    ticket(await a.take(set, web));
    ticket(await b.take(set, bare));
    ticket(await b.take(set, bare));
    const held = await b.take(set, bare);
    expect('deferred' in held && held.deferred.budget).toBe('maxNoOfPodsToEvictPerNamespace');
    if ('deferred' in held) observeDeferral(metrics, held.deferred, 'event');
    const shown = await remaining();
    expect(shown['maxNoOfPodsToEvictPerNamespace namespace ml']).toBe(0);
    // Held by either instance: a's removal and its chunk of 2; b's first removal and its chunk
    // of 1, which its second removal used (only the namespace needed a write then).
    expect(shown['maxNoOfPodsToEvictTotal cluster ']).toBe(10 - 3 - 2);
    // Another namespace the ledger does not hold has no series (keys are the ledger's, bounded).
    expect(Object.keys(shown).filter((k) => k.includes('namespace') && !k.endsWith(' ml'))).toEqual([]);
    const text = (await metricsExposition(metrics)).body;
    expect(text).toContain('kube_tidy_budget_deferred_total{budget="maxNoOfPodsToEvictPerNamespace",scope="namespace",path="event"} 1');
    a.close();
    b.close();
  });

  it('a ledger found unreadable: its budgets show 0 until the window under way ends, each meter by its own window', async () => {
    const cluster = fakeCluster();
    cluster.store({ 'ledger.json': '{"windows": [1,2,' });
    let now = T0 + 3 * M;
    const a = new Brakes({ ...cluster, metrics, namespace: 'kube-tidy', dryRun: false, now: () => now, holder: 'a' });
    const held = await a.take(set, bare);
    expect('deferred' in held && held.deferred.kind).toBe('ledger');
    expect((await remaining())['maxNoOfPodsToEvictTotal cluster ']).toBe(0);
    // The 15-minute window ended; the owner's hour has not: a bare pod goes, an owned one waits.
    now = T0 + 15 * M;
    ticket(await a.take(set, bare));
    expect((await remaining())['maxNoOfPodsToEvictTotal cluster ']).toBeGreaterThan(0);
    const owned = await a.take(set, web);
    expect('deferred' in owned && owned.deferred).toMatchObject({ kind: 'ledger', budget: 'kubeTidy.brakes.rates[0]' });
    a.close();
  });

  it('a key goes back to its full max when its window rolled over; each meter rolls with its own window', async () => {
    const cluster = fakeCluster();
    let now = T0;
    const a = new Brakes({ ...cluster, metrics, namespace: 'kube-tidy', dryRun: false, now: () => now, holder: 'a' });
    a.done(ticket(await a.take(set, web)), true);
    await a.settle();
    // 15 minutes on: a new window for the descheduler's limits, the same hour for the owner rate.
    now = T0 + 15 * M;
    await a.state();
    expect(await remaining()).toEqual({
      'maxNoOfPodsToEvictTotal cluster ': 10,
      'maxNoOfPodsToEvictPerNamespace namespace ml': 3,
      'kubeTidy.brakes.rates[0] owner ml/ReplicaSet/web': 1,
    });
    now = T0 + 60 * M;
    await a.state();
    expect((await remaining())['kubeTidy.brakes.rates[0] owner ml/ReplicaSet/web']).toBe(2);
    a.close();
  });

  it("an idle process's gauge rolls over too: at the window's end, with no request", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const cluster = fakeCluster();
      let now = T0 + 14 * M;
      const a = new Brakes({ ...cluster, metrics, namespace: 'kube-tidy', dryRun: false, now: () => now, holder: 'a' });
      a.done(ticket(await a.take(set, web)), true);
      await a.settle();
      const requests = cluster.calls.n;
      now = T0 + 15 * M - 1;
      vi.advanceTimersByTime(M - 1);
      expect((await remaining())['maxNoOfPodsToEvictPerNamespace namespace ml']).toBe(2);
      now = T0 + 15 * M;
      vi.advanceTimersByTime(1);
      expect(await remaining()).toEqual({
        'maxNoOfPodsToEvictTotal cluster ': 10,
        'maxNoOfPodsToEvictPerNamespace namespace ml': 3,
        'kubeTidy.brakes.rates[0] owner ml/ReplicaSet/web': 1,
      });
      expect(cluster.calls.n).toBe(requests);
      a.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a dry run shows the ledger as stored, not what it would have reserved', async () => {
    const cluster = fakeCluster();
    const plan = new Brakes({ ...cluster, metrics, namespace: 'kube-tidy', dryRun: true, now: () => T0, holder: 'plan' });
    ticket(await plan.take(set, web));
    expect(await remaining()).toEqual({ 'maxNoOfPodsToEvictTotal cluster ': 10 });
    plan.close();
  });

  it('keys are bounded: past MAX_VALUES - 1, _other shows the lowest of the rest; they too go back to full', async () => {
    const perNs: Meter = { scope: 'namespace', max: 3, windowMs: 15 * M, name: 'maxNoOfPodsToEvictPerNamespace' };
    const state: LedgerState = emptyLedger();
    for (let i = 0; i < 300; i++) state.counts[`namespace|${15 * M}|${T0}|ns-${String(i).padStart(3, '0')}`] = i === 250 ? 3 : 1;
    // A count of an earlier window is not this window's.
    state.counts[`namespace|${15 * M}|${T0 - 15 * M}|old`] = 3;
    observeBudgets(metrics, [perNs], state, T0 + M);
    let shown = await remaining();
    const keys = Object.keys(shown).map((k) => k.split(' ')[2]);
    expect(keys).toHaveLength(MAX_VALUES);
    expect(keys).toContain(OTHER);
    expect(keys).not.toContain('old');
    expect(shown[`maxNoOfPodsToEvictPerNamespace namespace ns-000`]).toBe(2);
    expect(shown[`maxNoOfPodsToEvictPerNamespace namespace ${OTHER}`]).toBe(0);
    observeBudgets(metrics, [perNs], emptyLedger(), T0 + 15 * M);
    shown = await remaining();
    expect(Object.keys(shown)).toHaveLength(MAX_VALUES);
    expect(new Set(Object.values(shown))).toEqual(new Set([3]));
  });

  it('the exposition passes promtool check metrics, with its TYPE gauge and HELP', async () => {
    const cluster = fakeCluster();
    const a = new Brakes({ ...cluster, metrics, namespace: 'kube-tidy', dryRun: false, now: () => T0, holder: 'a' });
    ticket(await a.take(set, web));
    const text = (await metricsExposition(metrics)).body;
    expect(text).toContain('# TYPE kube_tidy_budget_remaining gauge');
    expect(text).toMatch(/^# HELP kube_tidy_budget_remaining Removals a budget still allows/m);
    const checked = checkMetrics(text);
    expect(checked.out).toContain('metrics: ok');
    expect(checked.ok).toBe(true);
    a.close();
  });

  it('is pushed over OTLP as a gauge, the last value per series', async () => {
    const receiver = await startOtlpReceiver();
    try {
      process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = receiver.url;
      const a = new Brakes({ ...fakeCluster(), metrics, namespace: 'kube-tidy', dryRun: false, now: () => T0, holder: 'a' });
      ticket(await a.take(set, web));
      await metrics.afterRequest();
      const metric = receiver.exports
        .at(-1)!
        .resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics))
        .find((m) => m.name === 'kube_tidy_budget_remaining') as unknown as {
        gauge?: { dataPoints: { attributes: { key: string; value: { stringValue: string } }[]; asDouble?: number; asInt?: number }[] };
      };
      const points = Object.fromEntries(
        metric.gauge!.dataPoints.map((p) => [p.attributes.map((x) => x.value.stringValue).join(' '), Number(p.asDouble ?? p.asInt)]),
      );
      expect(points).toEqual({
        'maxNoOfPodsToEvictTotal cluster ': 7,
        'maxNoOfPodsToEvictPerNamespace namespace ml': 2,
        'kubeTidy.brakes.rates[0] owner ml/ReplicaSet/web': 1,
      });
      a.close();
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT;
      await receiver.close();
    }
  });
});

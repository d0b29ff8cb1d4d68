import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defrag } from '../../../functions/defrag.js';
import { evacuation } from '../../../functions/evacuation.js';
import { jobDeleted } from '../../../functions/job-deleted.js';
import { orphanSweep } from '../../../functions/orphan-sweep.js';
import { LabelBound, MAX_LENGTH, OTHER } from '../../../shared/metrics/bound.js';
import { metricsExposition } from '../../../shared/metrics/exposition.js';
import { apiHost, observeApiRequest, observeApiResponse, observeRemoval, observeRequest } from '../../../shared/metrics/observe.js';
import { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../fixtures/metrics/otlp-receiver.js';
import type { Answer } from '../../../shared/model/answer.js';

// The instrumentation without a cluster: what each result becomes, the bound on labels, the
// queue before the SDK loads, and the push at the end of a request. Each test its own recorder,
// as each process its own (built by its host).

let m: MetricsRecorder;
beforeEach(() => {
  m = new MetricsRecorder();
});
const scrape = async () => (await metricsExposition(m)).body;
/** Series lines (no comments) whose name and labels start as `prefix`. */
const lines = (text: string, prefix: string) => text.split('\n').filter((l) => l.startsWith(prefix));
const value = (text: string, series: string) => Number(lines(text, `${series} `)[0]?.split(' ')[1]);

afterEach(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT;
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete process.env.OTEL_EXPORTER_OTLP_METRICS_TIMEOUT;
  await m.shutdown();
});

/** A target's answer cut down to the fields its observe reads (each family's answer is typed in full). */
function observed<A extends Answer>(
  target: string,
  status: number,
  seconds: number,
  answer: Answer,
  tick: boolean,
  family?: (answer: A, metrics: MetricsRecorder) => void,
): void {
  observeRequest(m, target, status, seconds, answer as A, tick, family);
}

describe('labels are bounded', () => {
  it('keeps the first values of a label and counts later ones as _other', () => {
    const b = new LabelBound(2);
    expect(['a', 'b', 'c', 'a', 'd'].map((ns) => b.bound('m', { namespace: ns }).namespace)).toEqual(['a', 'b', OTHER, 'a', OTHER]);
    // Per metric: another metric has its own room.
    expect(b.bound('n', { namespace: 'c' }).namespace).toBe('c');
  });

  it('each label of a metric has its own room, whatever the names', () => {
    const b = new LabelBound(1);
    expect(b.bound('m', { namespace: 'a', node: 'b' })).toEqual({ namespace: 'a', node: 'b' });
    expect(b.bound('m', { node: 'a', namespace: 'b' })).toEqual({ node: OTHER, namespace: OTHER });
    // Names that would run together in one joined key stay apart.
    expect(b.bound('m\0x', { y: 'v' }).y).toBe('v');
    expect(b.bound('m', { 'x\0y': 'w' })['x\0y']).toBe('w');
  });

  it('cuts a long value', () => {
    expect(new LabelBound().bound('m', { node: 'x'.repeat(500) }).node).toHaveLength(MAX_LENGTH);
  });

  it('a flood of namespaces makes at most MAX_VALUES + 1 series', async () => {
    for (let i = 0; i < 300; i++)
      observeRemoval(m, { strategy: 'PodLifeTime', profile: 'p', namespace: `ns-${i}`, node: 'n' }, { action: 'delete', outcome: 'deleted', dryRun: false });
    const series = lines(await scrape(), 'kube_tidy_pods_evicted_total{');
    expect(series).toHaveLength(201);
    expect(
      value(
        await scrape(),
        'kube_tidy_pods_evicted_total{result="success",action="delete",strategy="PodLifeTime",profile="p",namespace="_other",node="n",dry_run="false"}',
      ),
    ).toBe(100);
  });
});

describe('results become measurements', () => {
  it.each([
    ['deleted', 'delete', 'success'],
    ['evicted', 'evict', 'success'],
    ['blocked', 'evict', 'blocked'],
    ['failed', 'delete', 'failed'],
    ['stale', 'delete', 'stale'],
  ])('a removal that ended %s (%s) counts as result=%s with the descheduler labels', async (outcome, action, result) => {
    observeRemoval(m, { strategy: 'RemoveFailedPods', profile: 'prod', namespace: 'ml', node: 'node-1' }, { action, outcome, dryRun: false });
    expect(
      value(
        await scrape(),
        `kube_tidy_pods_evicted_total{result="${result}",action="${action}",strategy="RemoveFailedPods",profile="prod",namespace="ml",node="node-1",dry_run="false"}`,
      ),
    ).toBe(1);
  });

  it('a dry run counts apart (dry_run="true"): nothing was removed', async () => {
    observeRemoval(m, { strategy: 'PodLifeTime', profile: 'p', namespace: 'ml', node: 'n' }, { action: 'evict', outcome: 'evicted', dryRun: true });
    const text = await scrape();
    expect(
      value(text, 'kube_tidy_pods_evicted_total{result="success",action="evict",strategy="PodLifeTime",profile="p",namespace="ml",node="n",dry_run="true"}'),
    ).toBe(1);
    expect(lines(text, 'kube_tidy_pods_evicted_total{').filter((l) => l.includes('dry_run="false"'))).toEqual([]);
  });

  it('what was recorded before the SDK loaded is all there after (the queue is replayed)', async () => {
    for (let i = 0; i < 5; i++) m.record('defragNodesFreed', 1);
    expect(value(await scrape(), 'kube_tidy_defrag_nodes_freed_total')).toBe(5);
  });

  it('a tick records a pass duration; an event does not', async () => {
    observeRequest(m, 'sweep', 200, 1.5, { outcome: 'swept' }, true);
    observeRequest(m, 'podTerminated', 200, 0.02, { outcome: 'kept' }, false);
    const text = await scrape();
    expect(value(text, 'kube_tidy_loop_duration_seconds_count{target="sweep"}')).toBe(1);
    expect(value(text, 'kube_tidy_loop_duration_seconds_bucket{target="sweep",le="1"}')).toBe(0);
    expect(value(text, 'kube_tidy_loop_duration_seconds_bucket{target="sweep",le="2.5"}')).toBe(1);
    expect(lines(text, 'kube_tidy_loop_duration_seconds_count{target="podTerminated"}')).toEqual([]);
    expect(value(text, 'kube_tidy_request_duration_seconds_count{target="podTerminated",code="200"}')).toBe(1);
    expect(value(text, 'kube_tidy_requests_total{target="podTerminated",code="200",outcome="kept"}')).toBe(1);
  });

  it('a refused request counts with its status and its reason as the outcome', async () => {
    observeRequest(m, 'podTerminated', 422, 0.001, undefined, false);
    observeRequest(m, 'sweep', 503, 0.001, undefined, true);
    const text = await scrape();
    expect(value(text, 'kube_tidy_requests_total{target="podTerminated",code="422",outcome="not-accepted"}')).toBe(1);
    expect(value(text, 'kube_tidy_requests_total{target="sweep",code="503",outcome="error"}')).toBe(1);
    expect(lines(text, 'kube_tidy_loop_duration_seconds_count')).toEqual([]);
  });

  it('MultiKueue: cascades and orphans per worker', async () => {
    observed(
      'jobDeleted',
      503,
      0.1,
      {
        outcome: 'incomplete',
        workers: [
          { worker: 'w1', outcome: 'deleted' },
          { worker: 'w2', outcome: 'unreachable' },
        ],
      },
      false,
      jobDeleted.observe,
    );
    const decisions = [
      { kind: 'Pod', action: 'delete', result: 'deleted' },
      { kind: 'Pod', action: 'delete', result: 'deleted' },
      { kind: 'Job', action: 'report' },
    ];
    observed(
      'orphanSweep',
      200,
      2,
      {
        outcome: 'swept',
        workers: [
          { worker: 'w1', outcome: 'swept', decisions },
          { worker: 'w2', outcome: 'unreachable', decisions: [] },
        ],
      },
      true,
      orphanSweep.observe,
    );
    const text = await scrape();
    expect(value(text, 'kube_tidy_multikueue_cascades_total{worker="w1",outcome="deleted"}')).toBe(1);
    expect(value(text, 'kube_tidy_multikueue_cascades_total{worker="w2",outcome="unreachable"}')).toBe(1);
    expect(value(text, 'kube_tidy_multikueue_orphans_total{worker="w1",kind="Pod",result="deleted"}')).toBe(2);
    expect(value(text, 'kube_tidy_multikueue_orphans_total{worker="w1",kind="Job",result="report"}')).toBe(1);
    expect(value(text, 'kube_tidy_multikueue_worker_sweeps_total{worker="w2",outcome="unreachable"}')).toBe(1);
  });

  it('evacuations by state (a tick over many pods, an event over one) and defrag steps and freed nodes', async () => {
    observed(
      'evacuation',
      200,
      1,
      { outcome: 'polled', results: [{ outcome: 'started' }, { outcome: 'succeeded' }, { outcome: 'started' }] },
      true,
      evacuation.observe,
    );
    observed('evacuation', 200, 0.1, { outcome: 'blocked', pod: 'ns/p' }, false, evacuation.observe);
    observed('defrag', 200, 0.5, { outcome: 'evicted', nodesFreed: 2 }, true, defrag.observe);
    observed('defrag', 200, 0.5, { outcome: 'converged' }, true, defrag.observe);
    const text = await scrape();
    expect(value(text, 'kube_tidy_evacuations_total{state="started"}')).toBe(2);
    expect(value(text, 'kube_tidy_evacuations_total{state="succeeded"}')).toBe(1);
    expect(value(text, 'kube_tidy_evacuations_total{state="blocked"}')).toBe(1);
    expect(value(text, 'kube_tidy_defrag_steps_total{outcome="evicted"}')).toBe(1);
    expect(value(text, 'kube_tidy_defrag_nodes_freed_total')).toBe(2);
  });

  it('API requests by method and server, answers by code', async () => {
    observeApiRequest(m, 'GET', apiHost('https://10.0.0.1:6443'));
    observeApiRequest(m, 'GET', apiHost('https://10.0.0.1:6443'));
    observeApiResponse(m, apiHost('https://10.0.0.1:6443'), 429);
    const text = await scrape();
    expect(value(text, 'kube_tidy_api_requests_total{method="GET",host="10.0.0.1:6443"}')).toBe(2);
    expect(value(text, 'kube_tidy_api_responses_total{host="10.0.0.1:6443",code="429"}')).toBe(1);
  });
});

describe('the push at the end of a request', () => {
  it('has exported when it returns', async () => {
    const receiver = await startOtlpReceiver();
    try {
      process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = receiver.url;
      observeRequest(m, 'podTerminated', 200, 0.01, { outcome: 'deleted' }, false);
      await m.afterRequest();
      expect(receiver.value('kube_tidy_requests', { target: 'podTerminated', outcome: 'deleted' })).toBe(1);
      observeRequest(m, 'podTerminated', 200, 0.01, { outcome: 'deleted' }, false);
      await m.afterRequest();
      // Cumulative: the second push holds both.
      expect(receiver.value('kube_tidy_requests', { target: 'podTerminated', outcome: 'deleted' })).toBe(2);
    } finally {
      await receiver.close();
    }
  });

  it('the generic OTEL_EXPORTER_OTLP_ENDPOINT works too (the exporter appends /v1/metrics)', async () => {
    const receiver = await startOtlpReceiver();
    try {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url.replace(/\/v1\/metrics$/, '');
      m.record('defragNodesFreed', 3);
      await m.afterRequest();
      expect(receiver.value('kube_tidy_defrag_nodes_freed')).toBe(3);
    } finally {
      await receiver.close();
    }
  });

  it('without an endpoint nothing is pushed, and the SDK still loads for a scrape', async () => {
    m.record('defragNodesFreed', 1);
    await m.afterRequest();
    expect(value(await scrape(), 'kube_tidy_defrag_nodes_freed_total')).toBe(1);
  });

  it('without an endpoint the SDK is sent to load after the first answer only, not after every one', async () => {
    const immediates = vi.spyOn(globalThis, 'setImmediate');
    try {
      for (let i = 0; i < 3; i++) {
        await m.afterRequest();
        await m.loadSdk();
      }
      expect(immediates).toHaveBeenCalledTimes(1);
    } finally {
      immediates.mockRestore();
    }
  });

  it('does not hold the answer up when the collector does not answer', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1/metrics`;
      m.record('defragNodesFreed', 1);
      const started = Date.now();
      await m.afterRequest(300);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe('a collector that is down costs once per retry interval, not per answer', () => {
  // Short intervals so the test runs in seconds; the defaults are 30 s doubling to 5 min.
  const backoff = { retryMs: 2_000, maxRetryMs: 3_000 };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** One answer: a removal counted, then the push; how long the push held the answer. */
  const answer = async () => {
    m.record('defragNodesFreed', 1);
    const started = Date.now();
    await m.afterRequest(2_000, backoff);
    return Date.now() - started;
  };
  /** The highest value of `name` any export carried (counters are cumulative: the latest totals, whatever order late retries arrived in). */
  const highest = (receiver: OtlpReceiver, name: string, match: Record<string, string> = {}) =>
    Math.max(
      0,
      ...receiver.exports.map((e) =>
        e.resourceMetrics
          .flatMap((rm) => rm.scopeMetrics.flatMap((s) => s.metrics))
          .filter((m) => m.name === name)
          .flatMap((m) => m.sum?.dataPoints ?? [])
          .filter((p) => Object.entries(match).every(([k, v]) => (p.attributes ?? []).some((a) => a.key === k && a.value.stringValue === v)))
          .reduce((a, p) => a + Number(p.asInt ?? p.asDouble ?? 0), 0),
      ),
    );

  /**
   * The collector down on `port` (`attempts`: the pushes it received, if it can tell). Then
   * `up` brings it back on the same port.
   */
  async function costsOnce(port: number, attempts: (() => number) | undefined, up: () => Promise<void>) {
    process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = `http://127.0.0.1:${port}/v1/metrics`;
    // The exporter gives up on an export after 2.5 s (default 10 s): longer than the cap, so the
    // push is slow, and over before the retry, so the retry sends a new one.
    process.env.OTEL_EXPORTER_OTLP_METRICS_TIMEOUT = '2500';
    // The first answer pays the cap (2 s), no more.
    expect(await answer()).toBeLessThanOrEqual(3_000);
    const tried = attempts?.();
    if (attempts) expect(tried).toBeGreaterThan(0);
    // Within the retry interval: no push, no wait.
    for (let i = 0; i < 5; i++) expect(await answer()).toBeLessThan(200);
    expect(attempts?.()).toBe(tried);
    // Once the interval has passed, one push is tried again (and pays at most the cap)...
    await sleep(backoff.retryMs + 100);
    expect(await answer()).toBeLessThanOrEqual(3_000);
    if (attempts) expect(attempts()).toBe(tried! + 1);
    // ...and, failing again, the next interval starts (doubled, capped at maxRetryMs).
    expect(await answer()).toBeLessThan(200);
    await up();
  }

  async function resumes(receiver: OtlpReceiver) {
    await sleep(backoff.maxRetryMs + 100);
    await answer();
    // Nothing lost: 9 answers, 9 removals counted, the last 8 never pushed before; and the pushes say what happened.
    expect(highest(receiver, 'kube_tidy_defrag_nodes_freed')).toBe(9);
    expect(highest(receiver, 'kube_tidy_metrics_pushes', { result: 'skipped' })).toBe(6);
    expect(highest(receiver, 'kube_tidy_metrics_pushes', { result: 'slow' }) + highest(receiver, 'kube_tidy_metrics_pushes', { result: 'failed' })).toBe(2);
    // A push that succeeded resets the interval: the next answer pushes too.
    expect(await answer()).toBeLessThan(2_000);
    expect(highest(receiver, 'kube_tidy_defrag_nodes_freed')).toBe(10);
    expect(highest(receiver, 'kube_tidy_metrics_pushes', { result: 'ok' })).toBe(1);
  }

  it('black-holed (accepts, never answers): the first answer pays, the next ones skip until the retry interval', async () => {
    let requests = 0;
    const hole = createServer(() => void requests++);
    await new Promise<void>((r) => hole.listen(0, '127.0.0.1', r));
    const port = (hole.address() as AddressInfo).port;
    let receiver: OtlpReceiver | undefined;
    try {
      await costsOnce(
        port,
        () => requests,
        async () => {
          hole.closeAllConnections();
          await new Promise<void>((r) => hole.close(() => r()));
          receiver = await startOtlpReceiver(port);
        },
      );
      await resumes(receiver!);
    } finally {
      hole.closeAllConnections();
      hole.close();
      await receiver?.close();
    }
  }, 120_000);

  it('closed (connection refused): the same, and pushing resumes when it is back', async () => {
    // A port that was just free: nothing listens on it until the collector comes back.
    const probe = await startOtlpReceiver();
    const port = Number(new URL(probe.url).port);
    await probe.close();
    let receiver: OtlpReceiver | undefined;
    try {
      await costsOnce(port, undefined, async () => {
        receiver = await startOtlpReceiver(port);
      });
      await resumes(receiver!);
    } finally {
      await receiver?.close();
    }
  }, 120_000);

  it('a push the collector refuses (HTTP 400) counts as failed and the next answers skip too', async () => {
    let requests = 0;
    const refusing = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => res.writeHead(400).end());
    });
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    try {
      process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/v1/metrics`;
      await answer();
      expect(requests).toBe(1);
      for (let i = 0; i < 3; i++) await answer();
      expect(requests).toBe(1);
      expect(value(await scrape(), 'kube_tidy_metrics_pushes_total{result="failed"}')).toBe(1);
      expect(value(await scrape(), 'kube_tidy_metrics_pushes_total{result="skipped"}')).toBe(3);
    } finally {
      refusing.close();
    }
  });
});

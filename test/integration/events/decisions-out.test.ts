// Issue 26, item 1: every decision out as a CloudEvent, on the real control plane. A real
// receiver (node:http, parsed by the cloudevents SDK's HTTP.toEvent) sees exactly the decisions
// made — a sweep's removals and its brake's deferral, then pod events — each pod's in order, one
// pass.completed for the pass, every data valid against its schema. A sink that is down or
// black-holed costs the sweep nothing but a counter: every removal happens, the answer is not
// materially later, and kube_tidy_events_out_total counts what was not sent.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { CloudEventV1 } from 'cloudevents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sweep } from '../../../functions/sweep.js';
import { metricsExposition } from '../../../shared/metrics/exposition.js';
import type { PassSummaryData, PodDecision, PodsDecided } from '../../../shared/notify/types.js';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { testNamespace, waitFor } from '../../harness/index.js';
import { outSchemas } from '../../fixtures/events/out-schemas.js';
import { receiver } from '../../fixtures/events/receiver.js';
import { core, failedPolicy, makePods, podNames, range } from '../brakes/helpers.js';
import { broker, knativeRequest, pingRequest, runtimeFor, send, serve } from '../functions/setup.js';

const swept = testNamespace('events-out');
const other = testNamespace('events-out-ev');
const down = testNamespace('events-out-down');
const runtimes: Runtime[] = [];
const schemas = outSchemas();

/** A rate brake of `max` removals per namespace, in a window with room left for the test (windows are aligned to the epoch). */
function rateBrake(max: number): Record<string, unknown> {
  const now = Date.now();
  const minutes = [60, 59, 61, 58, 62].find((m) => m * 60_000 - (now % (m * 60_000)) > 10 * 60_000)!;
  return { kubeTidy: { brakes: { rates: [{ max, per: `${minutes}m`, scope: 'namespace' }] } } };
}

// Where the next instance's decisions go: the sink in its environment, as its host reads it at start.
let sinkEnv: Record<string, string> = {};
const sinkTo = (env: Record<string, string>) => void (sinkEnv = env);

async function start(policy: unknown, env: Record<string, string> = {}): Promise<Runtime> {
  const rt = await runtimeFor(policy, { ...sinkEnv, ...env });
  runtimes.push(rt);
  return rt;
}

afterAll(() => {
  for (const rt of runtimes) rt.brakes().close();
  sinkTo({});
});

const subject = (ns: string, name: string) => `namespaces/${ns}/pods/${name}`;

describe('decisions as CloudEvents, to a real receiver', () => {
  let sink: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    sink = await receiver();
    sinkTo({ EVENTS_SINK: sink.url, EVENTS_BATCH_SIZE: '2' });
  });
  afterAll(() => sink.close());

  it('a sweep, its brake and pod events: exactly the decisions made, each pod in order, one pass.completed', async () => {
    await makePods(swept.name, range('sw', 7), { exitCode: 137 });
    const rt = await start(failedPolicy([swept.name, other.name], rateBrake(4)), { SWEEP_EVENTS_PER_PASS: '2' });

    // The sweep: 4 removed, then the namespace's rate defers the next (and the pass stops there).
    const res = await send(serve(sweep, rt), pingRequest());
    expect(res.status).toBe(200);
    const results = res.body.results as { namespace: string; name: string; outcome: string }[];
    const byOutcome = (o: string) => results.filter((r) => r.namespace === swept.name && r.outcome === o).map((r) => r.name);
    expect(byOutcome('deleted')).toHaveLength(4);
    expect(byOutcome('deferred').length).toBeGreaterThanOrEqual(1);
    const pass = res.body.summary.pass as string;
    await waitFor('the pass.completed', async () => sink.events.some((e) => e.type === 'dev.kube-tidy.pass.completed.v1'));

    // Pod events afterwards: a pod the sweep deferred is deferred again (the brake holds across
    // passes and events), and a new pod in another namespace is removed.
    const [evPod] = await makePods(other.name, ['ev-0'], { exitCode: 137 });
    const deferredName = byOutcome('deferred')[0]!;
    const deferredPod = (await core().readNamespacedPod({ namespace: swept.name, name: deferredName })) as Parameters<typeof knativeRequest>[2];
    const podAgent = serve(podTerminated, rt);
    const again = await send(podAgent, knativeRequest('binary', 'update', { apiVersion: 'v1', kind: 'Pod', ...deferredPod }));
    expect(again.body.outcome).toBe('deferred');
    const removed = await send(podAgent, knativeRequest('binary', 'update', evPod!));
    expect(removed.body.outcome).toBe('deleted');
    await waitFor('the event path decisions', async () => sink.events.filter((e) => e.source === 'kube-tidy/podTerminated').length >= 2);
    await new Promise((r) => setTimeout(r, 300)); // nothing more arrives
    expect(sink.bad).toEqual([]);

    // Every event is valid against the schema its dataschema names.
    for (const e of sink.events) expect(schemas.check(e.dataschema!, e.data), `${e.type} ${JSON.stringify(e.data)}`).toEqual([]);

    // Flattened: per-pod events and batches, in arrival order.
    const decisions: (PodDecision & { type: string })[] = [];
    for (const e of sink.events) {
      if (e.type === 'dev.kube-tidy.pods.decided.v1') for (const d of (e.data as PodsDecided).decisions) decisions.push({ ...d, type: e.type });
      else if (e.type.startsWith('dev.kube-tidy.pod.')) {
        const d = e.data as PodDecision;
        expect(e.type).toBe(`dev.kube-tidy.pod.${d.outcome}.v1`);
        expect(e.subject).toBe(subject(d.namespace, d.name));
        decisions.push({ ...d, type: e.type });
      }
    }
    const ofPass = decisions.filter((d) => d.pass === pass);
    // Exactly the pass's decisions, as its answer lists them. The outbox keeps each pod's events
    // in order, not the order across pods (a few sends are in flight at once): compared as sets.
    const key = (x: { name: string; outcome: string }) => `${x.name} ${x.outcome}`;
    expect(ofPass.map(key).sort()).toEqual(results.map(key).sort());
    expect(ofPass.every((d) => d.origin === 'sweep')).toBe(true);
    // The first two in the policy's order one event each, the rest in batches of 2.
    const single = ofPass.filter((d) => d.type !== 'dev.kube-tidy.pods.decided.v1').map(key);
    expect(single.sort()).toEqual(results.slice(0, 2).map(key).sort());
    expect(
      ofPass
        .filter((d) => d.type === 'dev.kube-tidy.pods.decided.v1')
        .map(key)
        .sort(),
    ).toEqual(results.slice(2).map(key).sort());
    // One pass.completed, after every decision of the pass, with its counts.
    const completed = sink.events.filter((e) => e.type === 'dev.kube-tidy.pass.completed.v1');
    expect(completed).toHaveLength(1);
    const summary = completed[0]!.data as PassSummaryData;
    expect(summary).toMatchObject({ kind: 'sweep', pass, dryRun: false, decisions: { single: 2, batched: results.length - 2 } });
    expect(summary.counts).toMatchObject({ selected: results.length, outcomes: res.body.summary.outcomes });
    expect(summary.counts).not.toHaveProperty('results');
    const at = (pred: (e: CloudEventV1<unknown>) => boolean) => sink.events.findIndex(pred);
    expect(at((e) => e.type === 'dev.kube-tidy.pass.completed.v1')).toBeGreaterThan(
      Math.max(...sink.events.map((e, i) => ((e.data as { pass?: string })?.pass === pass && e.type !== 'dev.kube-tidy.pass.completed.v1' ? i : -1))),
    );
    // The event path: the deferred pod's two decisions in the order made, the other pod's removal.
    expect(decisions.filter((d) => d.name === deferredName).map((d) => [d.outcome, d.origin])).toEqual([
      ['deferred', 'sweep'],
      ['deferred', 'event'],
    ]);
    expect(decisions.filter((d) => d.namespace === other.name).map((d) => [d.name, d.outcome, d.origin, d.type])).toEqual([
      ['ev-0', 'deleted', 'event', 'dev.kube-tidy.pod.deleted.v1'],
    ]);
    // Nothing else: every decision received is one of those made.
    expect(decisions).toHaveLength(results.length + 2);
    // What a Trigger filters on.
    const deleted = sink.events.find((e) => e.type === 'dev.kube-tidy.pod.deleted.v1' && e.source === 'kube-tidy/podTerminated')!;
    expect(deleted).toMatchObject({ namespace: other.name, strategy: 'RemoveFailedPods', origin: 'event', dryrun: 'false' });
    expect(deleted.dataschema).toBe('https://kube-tidy.dev/schemas/events/pod-decision.v1.json');
  });
});

describe('a shard taken by another instance', () => {
  const ns = testNamespace('events-out-shard');
  let sink: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    sink = await receiver();
    sinkTo({ EVENTS_SINK: sink.url, EVENTS_BATCH_SIZE: '2' });
  });
  afterAll(() => sink.close());

  it('sends its decisions as a pass does (the first one each, the rest in batches), then its own pass.completed', async () => {
    await makePods(ns.name, range('sh', 7), { exitCode: 137 });
    const b = await broker();
    try {
      const env = { SWEEP_SHARD_SINK: b.url, SWEEP_SHARD_SIZE: '3', SWEEP_PLAN_NAMESPACE: ns.name, SWEEP_EVENTS_PER_PASS: '1' };
      const planned = await send(serve(sweep, await start(failedPolicy([ns.name]), env)), pingRequest());
      expect(planned.body.summary.fannedOut).toMatchObject({ shards: 2, pods: 4 });
      const pass = planned.body.summary.pass as string;
      const shard = b.taken.find((m) => (JSON.parse(m.body) as { index: number }).index === 1)!;
      const taken = await send(serve(sweep, await start(failedPolicy([ns.name]), env)), shard);
      expect(taken.body).toMatchObject({ outcome: 'shard-done', outcomes: { deleted: 3 } });
      const names = (JSON.parse(shard.body) as { pods: { name: string }[] }).pods.map((p) => p.name);
      const completed = () => sink.events.filter((e) => e.type === 'dev.kube-tidy.pass.completed.v1' && (e.data as PassSummaryData).kind === 'shard');
      await waitFor('the shard’s pass.completed', async () => completed().length === 1 || undefined);
      const ofShard = sink.events.filter(
        (e) => e.source === 'kube-tidy/sweep' && e.type !== 'dev.kube-tidy.pass.completed.v1' && names.includes(podsOf(e)[0]!),
      );
      // A shard acts on its pods concurrently: each decision goes out as its write ends (each pod's own in order), so the shard's order is not kept.
      expect(ofShard.map((e) => [e.type, podsOf(e).length])).toEqual([
        ['dev.kube-tidy.pod.deleted.v1', 1],
        ['dev.kube-tidy.pods.decided.v1', 2],
      ]);
      expect(ofShard.flatMap(podsOf).sort()).toEqual([...names].sort());
      expect((ofShard[0]!.data as PodDecision).origin).toBe('shard');
      expect(completed()[0]!.data).toMatchObject({ kind: 'shard', pass, decisions: { single: 1, batched: 2, batches: 1 }, counts: { shard: 1, pods: 3 } });
      for (const e of sink.events) expect(schemas.check(e.dataschema!, e.data), `${e.type} ${JSON.stringify(e.data)}`).toEqual([]);
    } finally {
      b.close();
    }
  });
});

/** The pods an event is about: one for a pod event, several for a batch. */
const podsOf = (e: CloudEventV1<unknown>): string[] =>
  e.type === 'dev.kube-tidy.pods.decided.v1' ? (e.data as PodsDecided).decisions.map((d) => d.name) : [(e.data as PodDecision).name];

/** kube_tidy_events_out_total, summed per result over every instance this file started (each its own recorder, as each process). */
async function eventsOut(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const rt of runtimes) count((await metricsExposition(rt.metrics)).body, out);
  return out;
}

function count(body: string, out: Record<string, number>): void {
  for (const m of body.matchAll(/^kube_tidy_events_out_total\{([^}]*)\} (\S+)$/gm)) {
    const result = /result="([^"]+)"/.exec(m[1]!)?.[1] ?? '';
    out[result] = (out[result] ?? 0) + Number(m[2]);
  }
}

/** A sweep of `n` fresh Failed pods: how long its answer took, and what is left. */
async function timedSweep(prefix: string, n: number): Promise<{ ms: number; deleted: number; left: string[] }> {
  const ns = down.name;
  await makePods(ns, range(prefix, n), { exitCode: 137 });
  const rt = await start(failedPolicy([ns], {}, undefined));
  const agent = serve(sweep, rt);
  const t = Date.now();
  const res = await send(agent, pingRequest());
  const ms = Date.now() - t;
  expect(res.status).toBe(200);
  return { ms, deleted: res.body.summary.outcomes.deleted ?? 0, left: (await podNames(ns)).filter((p) => p.startsWith(`${prefix}-`)) };
}

describe('a sink that is down', () => {
  const N = 15;
  let blackHole: Server;
  let blackHoleUrl: string;
  beforeAll(async () => {
    // Takes connections and never answers.
    blackHole = createServer(() => undefined).listen(0, '127.0.0.1');
    await once(blackHole, 'listening');
    blackHoleUrl = `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}/`;
  });
  afterAll(() => {
    blackHole.closeAllConnections();
    blackHole.close();
  });

  it('costs a sweep nothing but the counter: every removal, no material delay (closed port, then black-holed)', async () => {
    sinkTo({});
    const before = await eventsOut();
    const base = await timedSweep('base', N);
    // Events off: nothing built, nothing counted.
    expect(await eventsOut()).toEqual(before);
    expect(base).toMatchObject({ deleted: N, left: [] });

    // A closed port: connection refused at once.
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
    closed.close();
    sinkTo({ EVENTS_SINK: closedUrl });
    const refused = await timedSweep('refused', N);
    expect(refused).toMatchObject({ deleted: N, left: [] });
    const afterRefused = await eventsOut();
    expect((afterRefused.failed ?? 0) - (before.failed ?? 0)).toBeGreaterThan(0);
    expect((afterRefused.dropped ?? 0) - (before.dropped ?? 0)).toBeGreaterThan(0);
    expect(afterRefused.sent ?? 0).toBe(before.sent ?? 0);

    // Black-holed: each send waits for its timeout; the answer waits at most the flush cap.
    sinkTo({ EVENTS_SINK: blackHoleUrl });
    const holed = await timedSweep('holed', N);
    expect(holed).toMatchObject({ deleted: N, left: [] });
    await waitFor('the black-holed sends counted', async () => {
      const c = await eventsOut();
      return (c.failed ?? 0) > (afterRefused.failed ?? 0) && (c.dropped ?? 0) > (afterRefused.dropped ?? 0);
    });

    console.log(`sweep of ${N} pods: events off ${base.ms} ms, sink refused ${refused.ms} ms, sink black-holed ${holed.ms} ms`);
    expect(refused.ms).toBeLessThan(base.ms + 2_000);
    expect(holed.ms).toBeLessThan(base.ms + 2_000);
  });
});

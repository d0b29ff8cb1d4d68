// The window rolls over in real time: `kubeTidy.brakes.window: 10s` with a total of 2. In one
// window 2 pods are removed and the rest deferred until the window's end (freesAt); after
// that instant the same events remove 2 more, the rest deferred to the next end. One
// BudgetExhausted Event per window, and the ledger keeps no counter of a window that is over.
import { EventsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import type { V1Pod } from '@kubernetes/client-node';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { knativeRequest, runtimeFor, send, serve } from '../functions/setup.js';
import { failedPolicy, limited, makePods, podNames, range, storedLedger } from './helpers.js';

const ns = testNamespace('brakes-roll');
const home = testNamespace('brakes-roll-home');
const W = 10_000;
let pods: V1Pod[];
let rt: Runtime | undefined;

beforeAll(async () => {
  pods = await makePods(ns.name, range('roll', 6), { exitCode: 137 });
}, 120_000);
afterAll(() => rt?.brakes().close());

describe('a 10 s window with a total of 2, in real time', () => {
  it('removes 2, defers the rest until the window ends, then removes 2 more', async () => {
    rt = await runtimeFor(failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 2, kubeTidy: { brakes: { window: '10s' } } }), { BRAKES_NAMESPACE: home.name });
    const agent = serve(podTerminated, rt);
    const events = (which: readonly V1Pod[]) =>
      limited(
        3,
        which.map(
          (pod) => () => send(agent, knativeRequest('binary', 'update', pod)).then((r) => ({ status: r.status, name: pod.metadata!.name!, body: r.body })),
        ),
      );

    // Start just after a boundary (windows are aligned to the epoch), with the whole window ahead.
    await waitFor('the start of a 10 s window', async () => Date.now() % W > 200 && Date.now() % W < 1500, { timeoutMs: 2 * W, intervalMs: 20 });
    const end = Math.floor(Date.now() / W) * W + W;
    const first = await events(pods);
    expect(Date.now(), 'the first round ran within its window').toBeLessThan(end);
    expect(first.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(first.filter((a) => a.body.outcome === 'deleted')).toHaveLength(2);
    const held = first.filter((a) => a.body.outcome === 'deferred');
    expect(held).toHaveLength(4);
    for (const a of held)
      expect(a.body.deferred).toMatchObject({
        kind: 'budget',
        budget: 'maxNoOfPodsToEvictTotal',
        scope: 'cluster',
        limit: 2,
        window: '10s',
        freesAt: new Date(end).toISOString(),
      });
    expect((await podNames(ns.name)).length).toBe(4);

    // Before the instant it frees, still deferred; after it, 2 more.
    const early = await send(
      agent,
      knativeRequest(
        'binary',
        'update',
        pods.find((p) => p.metadata!.name === held[0]!.name)!,
      ),
    );
    if (Date.now() < end) expect(early.body.outcome).toBe('deferred');
    await waitFor('the window to end', async () => Date.now() >= end + 100, { timeoutMs: 2 * W, intervalMs: 20 });
    const second = await events(pods.filter((p) => held.some((a) => a.name === p.metadata!.name)));
    expect(Date.now(), 'the second round ran within the next window').toBeLessThan(end + W);
    expect(second.map((a) => a.body.outcome).sort()).toEqual(['deferred', 'deferred', 'deleted', 'deleted']);
    for (const a of second.filter((x) => x.body.outcome === 'deferred')) expect(a.body.deferred).toMatchObject({ freesAt: new Date(end + W).toISOString() });
    expect((await podNames(ns.name)).length).toBe(2);

    // The ledger forgot the window that is over; one Event said so per window, not per pod.
    await rt.brakes().settle();
    expect(Object.keys((await storedLedger(home.name)).counts)).toEqual([`cluster|${W}|${end}|`]);
    const notes = (await sharedCluster().kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: home.name })).items
      .filter((e) => e.reason === 'BudgetExhausted')
      .map((e) => e.note!);
    expect(notes.sort()).toEqual([
      expect.stringContaining(`frees by ${new Date(end).toISOString()}`),
      expect.stringContaining(`frees by ${new Date(end + W).toISOString()}`),
    ]);
  });
});

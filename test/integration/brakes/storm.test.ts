// The storm of issue 22, on the real control plane: the descheduler's limits (5 in total, 5 per
// namespace) over 60 Failed pods, one ApiServerSource event each, 8 in flight over three
// podTerminated instances, while a sweep plans, acts on its first shard and fans the rest out
// to two other sweep instances (the test plays the broker). Every instance is a runtime of
// its own (its own Brakes, its own reservations) sharing one ledger namespace. Never more
// than 5 removed in the window, every answer 2xx, every deferral names its budget and when it
// frees; once every instance has settled, the events again bring it to exactly 5 (nothing
// held back for good), and one BudgetExhausted Event says so.
import { EventsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sweep } from '../../../functions/sweep.js';
import type { HttpMessage } from '../../../shared/cloudevents/index.js';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { knativeRequest, pingRequest, runtimeFor, send, serve } from '../functions/setup.js';
import { broker, failedPolicy, limited, makePods, podNames, range, storedLedger, windowEnd, windowWithRoom } from './helpers.js';
import type { V1Pod } from '@kubernetes/client-node';

const ns = testNamespace('brakes-storm');
/** The ledger's namespace, and the sweep's plans: shared by every instance, as KUBE_TIDY_NAMESPACE in a deployment. */
const home = testNamespace('brakes-storm-home');

let pods: V1Pod[];
let b: Awaited<ReturnType<typeof broker>> | undefined;
const runtimes: Runtime[] = [];

beforeAll(async () => {
  pods = await makePods(ns.name, range('storm', 60), { exitCode: 137 });
}, 120_000);
afterAll(() => {
  b?.close();
  for (const rt of runtimes) rt.brakes().close();
});

describe('an event storm, three podTerminated instances and a fanned-out sweep against maxNoOfPodsToEvictTotal/PerNamespace 5', () => {
  it('removes at most 5 in the window, answers every request 2xx, and defers the rest by budget with freesAt', async () => {
    const started = Date.now();
    const { top, windowMs } = windowWithRoom(3 * 60_000, started);
    const policy = failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 5, maxNoOfPodsToEvictPerNamespace: 5, ...top });
    const env = { KUBE_TIDY_NAMESPACE: home.name };
    const start = async (extra: Record<string, string> = {}) => {
      const rt = await runtimeFor(policy, { ...env, ...extra });
      runtimes.push(rt);
      return rt;
    };
    const events = await Promise.all([0, 1, 2].map(async () => serve(podTerminated, await start())));
    const shardTakers = await Promise.all([0, 1].map(async () => serve(sweep, await start())));
    const shardAnswers: Promise<{ status: number; body: Record<string, unknown> }>[] = [];
    let delivered = 0;
    b = await broker((m: HttpMessage) => void shardAnswers.push(send(shardTakers[delivered++ % 2]!, m).then((r) => ({ status: r.status, body: r.body }))));
    const planner = serve(sweep, await start({ SWEEP_SHARD_SINK: b.url, SWEEP_SHARD_SIZE: '2' }));

    // The storm and the sweep at the same time; the shards go out as the broker takes them.
    const storm = limited(
      8,
      pods.map((pod, i) => () => send(events[i % 3]!, knativeRequest('binary', 'update', pod)).then((r) => ({ status: r.status, body: r.body }))),
    );
    const swept = send(planner, pingRequest()).then((r) => ({ status: r.status, body: r.body }));
    const answers = await storm;
    const sweepAnswer = await swept;
    const shards = await Promise.all(shardAnswers);

    // Every answer 2xx: a held-back pod is not an error, and no retry storm follows.
    expect(answers.map((a) => a.status).filter((s) => s < 200 || s > 299)).toEqual([]);
    expect(sweepAnswer.status).toBe(200);
    expect(shards.map((s) => s.status).filter((s) => s !== 200)).toEqual([]);
    // The sweep planned its one cycle (5, the pass's own limit) and fanned out: the shards were taken.
    expect(sweepAnswer.body.summary).toMatchObject({ fannedOut: { notPosted: 0 } });
    expect(shards.length).toBe((sweepAnswer.body.summary as { fannedOut: { shards: number } }).fannedOut.shards);

    // What the cluster says: at most 5 pods gone.
    const left = (await podNames(ns.name)).filter((n) => n.startsWith('storm-'));
    const removed = 60 - left.length;
    expect(removed).toBeLessThanOrEqual(5);
    // And every removal is one some answer reported: nothing removed behind the answers' back.
    const deletedByEvents = answers.filter((a) => a.body.outcome === 'deleted').length;
    const deletedBySweep =
      ((sweepAnswer.body.summary as { outcomes: Record<string, number> }).outcomes.deleted ?? 0) +
      shards.reduce((n, s) => n + ((s.body.outcomes as Record<string, number>).deleted ?? 0), 0);
    expect(deletedByEvents + deletedBySweep).toBe(removed);

    // The held-back pods: deferred, naming the budget, its limit and window, and when it frees.
    const deferred = answers.filter((a) => a.body.outcome === 'deferred');
    expect(deferred.length).toBeGreaterThanOrEqual(60 - 5 - 5);
    const frees = windowEnd(started, windowMs);
    for (const a of deferred) {
      expect(a.body.deferred).toMatchObject({
        kind: 'budget',
        budget: expect.stringMatching(/^maxNoOfPodsToEvict(Total|PerNamespace)$/),
        limit: 5,
        freesAt: frees,
      });
      expect(a.body.why).toContain(`it frees by ${frees}`);
    }

    // Once every instance settled (as an idle one does when the budget is nearly spent, or
    // before its hold expires), nothing stays reserved, and
    // the events again (to a new instance: the others may defer on their reads of the ledger
    // for 2 s) fill the window to exactly 5: the brakes hold back, they do not lose.
    for (const rt of runtimes) await rt.brakes().settle();
    expect((await storedLedger(home.name)).holds).toEqual({});
    const late = serve(podTerminated, await start());
    const again = await limited(
      4,
      pods.filter((p) => left.includes(p.metadata!.name!)).map((pod) => () => send(late, knativeRequest('binary', 'update', pod))),
    );
    expect(again.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    expect(60 - (await podNames(ns.name)).filter((n) => n.startsWith('storm-')).length).toBe(5);

    // One Event per budget and window, in the ledger's namespace, not one per pod.
    const notes = (await sharedCluster().kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: home.name })).items
      .filter((e) => e.reason === 'BudgetExhausted')
      .map((e) => e.note!);
    // (The total and the namespace's counters move together here; the total is checked first.)
    expect(notes).toEqual([
      expect.stringContaining(`maxNoOfPodsToEvictTotal (5 per ${windowMs / 60_000}m in the cluster) is spent for this window; it frees by ${frees}`),
    ]);
    expect(new Date(Date.now()).toISOString() < frees, 'the whole test ran in one window').toBe(true);
  });
});

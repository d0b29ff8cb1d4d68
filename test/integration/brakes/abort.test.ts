// The percentage abort on the real control plane: `kubeTidy.brakes.abort: [{percent: 30,
// scope: namespace}]`, a namespace of 10 pods of which the policy selects 6 (Failed; 4 run).
// A sweep removes 3 (the 4th would be 40% of what it considered), says stoppedBy abort with the
// reason, and sends no write past that point (the API server's audit log is the witness). The
// stop is sticky: the next tick, from another instance, removes nothing (without the trip it
// would remove 2 of the 7 left). Resuming is a deliberate act: invoke's override with the run
// token removes the rest; so does raising the percent.
import { EventsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../../../functions/invoke.js';
import { sweep } from '../../../functions/sweep.js';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { sharedAudit, sharedCluster, testNamespace } from '../../harness/index.js';
import { pingRequest, runtimeFor, send, serve } from '../functions/setup.js';
import { broker, failedPolicy, makePods, podNames, range } from './helpers.js';

const ns = testNamespace('brakes-abort');
const home = testNamespace('brakes-abort-home');
const TOKEN = 'a-long-enough-test-token';
const runtimes: Runtime[] = [];

const policy = (percent: number) => failedPolicy([ns.name], { kubeTidy: { brakes: { abort: [{ percent, scope: 'namespace' }] } } });
async function instance(percent: number, env: Record<string, string> = {}) {
  const rt = await runtimeFor(policy(percent), { KUBE_TIDY_NAMESPACE: home.name, INVOKE_TOKEN: TOKEN, ...env });
  runtimes.push(rt);
  return { sweep: serve(sweep, rt), invoke: serve(invoke, rt) };
}
/** Pod DELETEs kube-tidy sent to this namespace since `mark`, as the API server logged them (kwok, as the kubelet, sends its own). */
const deletesSince = async (mark: number) =>
  (await sharedAudit().settledSince(mark)).filter(
    (w) => w.verb === 'delete' && w.resource === 'pods' && w.namespace === ns.name && !w.dryRun && w.user !== 'kwok',
  );
const failedLeft = async () => (await podNames(ns.name)).filter((n) => !n.startsWith('run-'));

beforeAll(async () => {
  await Promise.all([makePods(ns.name, range('failed', 6), { exitCode: 137 }), makePods(ns.name, range('run', 4))]);
}, 120_000);
afterAll(() => {
  for (const rt of runtimes) rt.brakes().close();
});

describe('a sweep that would remove 60% of a namespace under a 30% abort', () => {
  it('removes 3, stops with the reason and writes nothing past it; the next tick removes nothing; invoke’s override resumes', async () => {
    const audit = sharedAudit();
    let mark = audit.mark();
    const first = await send((await instance(30)).sweep, pingRequest());
    expect(first.status).toBe(200);
    expect(first.body.summary).toMatchObject({
      stoppedBy: 'abort',
      outcomes: { deleted: 3 },
      brakes: {
        aborted: {
          scope: 'namespace',
          key: ns.name,
          percent: 30,
          selected: 6,
          considered: 10,
          why: expect.stringMatching(/would remove 6 of the 10 pods it considered in namespace \S+ \(60%\), more than 30%/),
        },
      },
    });
    expect(first.body.kept.filter((k: { reason: string }) => k.reason.includes('stopped before this pod'))).toHaveLength(3);
    const deleted = (await deletesSince(mark)).map((w) => w.name!);
    expect(deleted).toHaveLength(3);
    expect([...deleted, ...(await failedLeft())].sort()).toEqual(range('failed', 6));
    // Said once in the ledger's namespace, not per pod.
    const events = (await sharedCluster().kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: home.name })).items.filter(
      (e) => e.reason === 'PassAborted',
    );
    expect(events.map((e) => e.note)).toEqual([expect.stringMatching(/stopped namespace \S+ .*would have removed 6 of 10 pods, more than 30%/)]);
    expect(first.body.summary.brakes).toMatchObject({ deferred: 3, byBudget: { 'kubeTidy.brakes.abort': 3 } });

    // Sticky: another instance's tick removes nothing, and says why.
    mark = audit.mark();
    const second = await send((await instance(30)).sweep, pingRequest());
    expect(second.status).toBe(200);
    expect(second.body.summary.outcomes.deleted ?? 0).toBe(0);
    expect(second.body.summary.brakes).toMatchObject({ deferred: 3, byBudget: { 'kubeTidy.brakes.abort': 3 } });
    expect(second.body.kept).toEqual(
      expect.arrayContaining([expect.objectContaining({ reason: expect.stringContaining('raise the percent or resume with invoke') })]),
    );
    expect(await deletesSince(mark)).toEqual([]);
    expect(await failedLeft()).toHaveLength(3);

    // A person resumes: invoke run, confirmed, with the token and the override.
    const { invoke: inv } = await instance(30);
    const planned = await inv.post('/').send({ mode: 'plan', override: 'abort' });
    expect(planned.status).toBe(400);
    const resumed = await inv
      .post('/')
      .set('authorization', `Bearer ${TOKEN}`)
      .send({ mode: 'run', confirm: true, override: 'abort', namespaces: [ns.name] });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ outcome: 'ran', summary: { outcomes: { deleted: 3 }, brakes: { resumed: 1 } } });
    expect(resumed.body.summary.stoppedBy).toBeUndefined();
    expect(await failedLeft()).toEqual([]);
    expect((await podNames(ns.name)).sort()).toEqual(range('run', 4));
  });

  it('a raised percent resumes a stopped namespace too', async () => {
    await makePods(ns.name, range('again', 6), { exitCode: 137 });
    const stopped = await send((await instance(30)).sweep, pingRequest());
    expect(stopped.body.summary).toMatchObject({ stoppedBy: 'abort', outcomes: { deleted: 3 } });
    expect(await failedLeft()).toHaveLength(3);
    // 3 of the 7 left is 43%: past 30, within 50.
    const raised = await send((await instance(50)).sweep, pingRequest());
    expect(raised.status).toBe(200);
    expect(raised.body.summary.outcomes).toEqual({ deleted: 3 });
    expect(raised.body.summary.stoppedBy).toBeUndefined();
    expect(await failedLeft()).toEqual([]);
  });

  it('a sweep that fans out: its shards carry what it kept before the line, and remove it', async () => {
    await makePods(ns.name, range('fan', 6), { exitCode: 137 });
    const shards: Promise<{ status: number; body: Record<string, unknown> }>[] = [];
    const taker = (await instance(30)).sweep;
    const b = await broker((m) => void shards.push(send(taker, m).then((r) => ({ status: r.status, body: r.body }))));
    try {
      const planner = await send((await instance(30, { SWEEP_SHARD_SINK: b.url, SWEEP_SHARD_SIZE: '1' })).sweep, pingRequest());
      expect(planner.body.summary).toMatchObject({ stoppedBy: 'abort', outcomes: { deleted: 1 }, fannedOut: { shards: 2, pods: 2, notPosted: 0 } });
      const taken = await Promise.all(shards);
      expect(taken.map((t) => [t.status, t.body.outcomes])).toEqual([
        [200, { deleted: 1 }],
        [200, { deleted: 1 }],
      ]);
      expect(await failedLeft()).toHaveLength(3);
    } finally {
      b.close();
    }
  });
});

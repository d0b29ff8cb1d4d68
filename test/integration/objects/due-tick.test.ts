// objectUpdated's due-list tick on the real control plane (issue 44). The outside campaign: the
// tick was open to a flood (100 forged ticks cost 4,550 API reads, 70x one tick), and forged or
// stale entries a tick decided "not selected" stayed listed, read again (about 15 GETs each) on
// every tick. Now it is pod cleanup's tick loop: a tick from a sender DUE_TICK_SENDERS does not
// name is refused before anything is read; ticks at once join one loop, which holds until the
// next tick; and an entry the pass decided on leaves the list, so the next tick reads nothing
// for it. Requests are counted with the runtime's own client (its onRequest).
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { objectUpdated } from '../../../functions/object-updated.js';
import { shardOf } from '../../../shared/cleanup/due/core/due.js';
import { objectsDueName } from '../../../shared/model/keys.js';
import { senderAuthFromEnv } from '../../../shared/serve/http/auth.js';
import { serveTarget } from '../../../shared/serve/http/functions-framework.js';
import { policyDoc } from '../../fixtures/policy.js';
import { finishedJob, sharedCluster, testNamespace } from '../../harness/index.js';
import { countedRuntime, serveParts, type Seen } from '../due/setup.js';
import { pingRequest, send } from '../functions/setup.js';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import supertest from 'supertest';

const ns = testNamespace('objects-tick');
const kc = () => sharedCluster().kubeConfig();
const core = () => kc().makeApiClient(CoreV1Api);
const batch = () => kc().makeApiClient(BatchV1Api);
// Jobs past an hour finished only: a Job that finished just now is not selected, and no Job here is.
const policy = () =>
  policyDoc([{ name: 'RemoveFailedPods', args: { namespaces: { include: ['nothing-here'] } } }], {
    top: { kubeTidy: { objects: [{ name: 'old-jobs', kind: 'Job', minAge: '1h', mode: 'delete', namespaces: { include: [ns.name] } }] } },
  });
/**
 * A tick holds ~27 s (the deadline less its margin), looking at the lists every 25 s: two looks.
 * A tick joins the running loop only when its own window ends at most one poll after that loop's
 * (one-loop.ts: the slack is DUE_POLL_SECONDS), so the flood's 100 requests have the poll, not
 * the hold, to arrive: 25 s. At a 5 s poll a tick 6.5 s after the first ran a loop of its own
 * even under a 27 s hold (checked), which load alone could make the flood's.
 */
const HOLD = { REQUEST_DEADLINE_SECONDS: '30', DUE_POLL_SECONDS: '25' };

/**
 * Puts entries into the Job due list of `list`, due now: as an instance that died left them, or
 * (`shard`) where a forger put one, who does not know which shard kube-tidy keeps a uid in.
 */
async function listed(list: string, entries: { uid: string; name: string; shard?: number }[]): Promise<void> {
  await core()
    .createNamespace({ body: { metadata: { name: list } } })
    .catch(() => undefined);
  const shards = new Map<number, Record<string, string>>();
  for (const e of entries) {
    const s = e.shard ?? shardOf(e.uid, 4);
    shards.set(s, { ...shards.get(s), [e.uid]: JSON.stringify({ namespace: ns.name, name: e.name, at: Date.now() - 1_000 }) });
  }
  for (const [s, data] of shards) await core().createNamespacedConfigMap({ namespace: list, body: { metadata: { name: objectsDueName('Job', s) }, data } });
}
const listedUids = async (list: string): Promise<string[]> =>
  (await core().listNamespacedConfigMap({ namespace: list })).items
    .filter((c) => c.metadata!.name!.startsWith('kube-tidy-objects-due-'))
    .flatMap((c) => Object.keys(c.data ?? {}));

const FORGED = '0d5e1c2a-0000-4000-8000-00000000f0f0';
const isListRead = (r: Seen) => r.method === 'GET' && /\/configmaps\/kube-tidy-objects-due-[a-z]+-\d+$/.test(r.path);
const isJobRead = (r: Seen) => r.method === 'GET' && r.path.startsWith(`/apis/batch/v1/namespaces/${ns.name}/`);

describe('an entry the tick decided on', () => {
  it('leaves the list after one tick (a finished Job not selected; a forged uid, in a shard kube-tidy would not put it): the next tick reads nothing for them', async () => {
    const list = `${ns.name}-decided`;
    const job = await finishedJob(batch(), ns.name, 'recent');
    await listed(list, [
      { uid: job.metadata!.uid!, name: 'recent' },
      { uid: FORGED, name: 'forged', shard: (shardOf(FORGED, 4) + 1) % 4 },
    ]);
    const { rt, requests } = await countedRuntime(policy(), { DUE_NAMESPACE: list, ...HOLD });
    const parts = await objectUpdated.setup(rt);
    const agent = serveParts(objectUpdated, parts, rt);
    try {
      const first = await send(agent, pingRequest('object-updated'));
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body).toMatchObject({ outcome: 'ticked', due: 2, outcomes: { 'nothing-to-do': 2 }, removed: 2 });
      expect(await listedUids(list)).toEqual([]);
      const jobReads = requests.filter(isJobRead).length;
      expect(jobReads).toBeGreaterThan(0);
      const second = await send(agent, pingRequest('object-updated'));
      expect(second.body).toMatchObject({ outcome: 'ticked', due: 0 });
      expect(requests.filter(isJobRead).length, 'no Job read by the second tick').toBe(jobReads);
    } finally {
      parts.stop();
    }
  }, 120_000);
});

describe('a flood of ticks', () => {
  /** `n` ticks at once to a fresh process: their answers and the reads of the due lists it sent. */
  async function flood(list: string, n: number) {
    const { rt, requests } = await countedRuntime(policy(), { DUE_NAMESPACE: list, ...HOLD });
    const parts = await objectUpdated.setup(rt);
    const agent = serveParts(objectUpdated, parts, rt);
    try {
      const answers = await Promise.all(Array.from({ length: n }, () => send(agent, pingRequest('object-updated'))));
      return { answers: answers.map((a) => ({ status: a.status, outcome: a.body.outcome as string })), reads: requests.filter(isListRead).length };
    } finally {
      parts.stop();
    }
  }

  it('100 ticks at once cost the lists’ reads of one tick: one loop runs, the others join it', async () => {
    const [one, many] = await Promise.all([flood(`${ns.name}-one`, 1), flood(`${ns.name}-many`, 100)]);
    console.log(`objects due list reads: 1 tick ${one.reads}, 100 ticks ${many.reads}`);
    expect(many.answers.every((a) => a.status === 200)).toBe(true);
    expect(many.answers.filter((a) => a.outcome === 'ticked')).toHaveLength(1);
    expect(many.answers.filter((a) => a.outcome === 'joined')).toHaveLength(99);
    // A look more or less (12 reads: 3 kinds x 4 shards) where the loops' clocks fall differently.
    expect(many.reads).toBeLessThanOrEqual(one.reads + 12);
  }, 120_000);

  it('from a sender DUE_TICK_SENDERS does not name: every tick refused 403 as podTerminated says it, nothing read', async () => {
    const AUDIENCE = 'serving.knative.dev/service/kube-tidy/object-updated';
    const sa = (name: string) => `system:serviceaccount:${ns.name}:${name}`;
    const mint = async (name: string) => {
      await core()
        .createNamespacedServiceAccount({ namespace: ns.name, body: { metadata: { name } } })
        .catch(() => undefined);
      return (await core().createNamespacedServiceAccountToken({ name, namespace: ns.name, body: { spec: { audiences: [AUDIENCE], expirationSeconds: 600 } } }))
        .status!.token!;
    };
    const env = {
      SENDER_AUTH: 'kubernetes',
      SENDER_AUTH_AUDIENCE: AUDIENCE,
      SENDER_AUTH_SUBJECTS: `${sa('job-events')},${sa('ticker')}`,
      DUE_TICK_SENDERS: sa('ticker'),
      DUE_NAMESPACE: `${ns.name}-senders`,
      ...HOLD,
    };
    const { rt, requests } = await countedRuntime(policy(), env);
    const parts = await objectUpdated.setup(rt);
    const name = `objects-senders-${process.pid}`;
    http(name, serveTarget(objectUpdated, parts, rt, senderAuthFromEnv(env, { kubeConfig: kc() })));
    const agent = supertest(getTestServer(name));
    const ping = pingRequest('object-updated');
    const forged = { ...ping, headers: { ...ping.headers, authorization: `Bearer ${await mint('job-events')}` } };
    try {
      const answers = await Promise.all(Array.from({ length: 100 }, () => send(agent, forged)));
      expect(answers.every((a) => a.status === 403)).toBe(true);
      expect(answers[0]!.body.error).toBe(
        `sender "${sa('job-events')}" may not tick objectUpdated (DUE_TICK_SENDERS names ${sa('ticker')}): nothing was read or done`,
      );
      expect(requests, 'not one request to the API server from the function’s client').toEqual([]);
      const taken = await send(agent, { ...ping, headers: { ...ping.headers, authorization: `Bearer ${await mint('ticker')}` } });
      expect(taken.status).toBe(200);
      expect(requests.filter(isListRead).length).toBeGreaterThan(0);
    } finally {
      parts.stop();
    }
  }, 120_000);
});

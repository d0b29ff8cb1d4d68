// Issue 33 on the real control plane. (i) Ticks sent at once to one podTerminated process run
// one loop: the due list is read about as often as for one tick, the entry due meanwhile is
// acted on once, and every other tick is answered at once as joined. (ii) With
// DUE_TICK_SENDERS on, a tick from an authenticated sender it does not name (the pod events'
// Trigger) is refused 403 and reads nothing; the named sender's tick is taken. Before the
// fix, (i) read the list N times as often and (ii) took every tick.
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { CoreV1Api } from '@kubernetes/client-node';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { senderAuthFromEnv } from '../../../shared/serve/http/auth.js';
import { serveTarget } from '../../../shared/serve/http/functions-framework.js';
import { policyDoc } from '../../fixtures/policy.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { knativeRequest, pingRequest, runPod, send } from '../functions/setup.js';
import { countedRuntime, dueEntries, isDueRead, serveParts, type Seen } from './setup.js';

const ns = testNamespace('due-one');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const AGE_S = 15;
const POLICY = policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: AGE_S } }], {
  evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
});
/**
 * A tick holds ~57 s (the deadline less its margin), looking at the list every 8 s: about 8 looks,
 * 4 GETs each. A tick joins the running loop only when it arrives within one poll of the first
 * (one-loop.ts: the slack is a poll), so the N requests have 8 s to arrive, not the hold: at a 2 s
 * poll under load 25 some came later and rightly ran a loop of their own.
 */
const HOLD = { REQUEST_DEADLINE_SECONDS: '60', DUE_POLL_SECONDS: '8' };
const N = 20;

/** A pod listed in `list` by an instance that then went away (its timer stopped): only a tick acts on it. */
async function listedPod(list: string, name: string): Promise<void> {
  const first = await countedRuntime(POLICY, { DUE_NAMESPACE: list });
  const parts = await podTerminated.setup(first.rt);
  const pod = await runPod(core(), ns.name, name, { exitCode: 1 });
  const res = await send(serveParts(podTerminated, parts, first.rt), knativeRequest('binary', 'update', pod));
  expect(res.body.scheduled).toBe(res.body.eligibleAt);
  parts.stop();
  expect(await dueEntries(list)).toEqual([pod.metadata!.uid]);
}

/** `n` ticks sent at once to one fresh process: their answers and every request it sent. */
async function ticks(list: string, n: number): Promise<{ answers: { status: number; body: Record<string, unknown> }[]; requests: Seen[] }> {
  const { rt, requests } = await countedRuntime(POLICY, { DUE_NAMESPACE: list, ...HOLD });
  const parts = await podTerminated.setup(rt);
  const agent = serveParts(podTerminated, parts, rt);
  try {
    const answers = await Promise.all(
      Array.from({ length: n }, () => send(agent, pingRequest('pod-terminated')).then((r) => ({ status: r.status, body: r.body }))),
    );
    return { answers, requests };
  } finally {
    parts.stop();
  }
}

const deletesOf = (requests: Seen[], name: string) => requests.filter((r) => r.method === 'DELETE' && r.path === `/api/v1/namespaces/${ns.name}/pods/${name}`);

describe('one tick loop per process (issue 33)', () => {
  it(`${N} ticks at once read the due list about as often as one, act on the entry once, and all but one join at once`, async () => {
    await Promise.all([listedPod(`${ns.name}-one`, 'by-one'), listedPod(`${ns.name}-many`, 'by-many')]);
    // The two processes side by side: the same hold, the same list, one tick against N.
    const [one, many] = await Promise.all([ticks(`${ns.name}-one`, 1), ticks(`${ns.name}-many`, N)]);

    const oneReads = one.requests.filter(isDueRead).length;
    const manyReads = many.requests.filter(isDueRead).length;
    // The figures, for the issue: reads of the due list and DELETEs of the pod, one tick against N.
    console.log(`due list reads: 1 tick ${oneReads}, ${N} ticks ${manyReads}; pod DELETEs: ${deletesOf(many.requests, 'by-many').length}`);
    expect(one.answers[0]).toMatchObject({ status: 200, body: { outcome: 'ticked', outcomes: { deleted: 1 }, removed: 1 } });
    const ran = many.answers.filter((a) => a.body.outcome === 'ticked');
    const joined = many.answers.filter((a) => a.body.outcome === 'joined');
    expect(many.answers.every((a) => a.status === 200)).toBe(true);
    expect(ran).toHaveLength(1);
    expect(ran[0]!.body).toMatchObject({ outcomes: { deleted: 1 }, removed: 1 });
    expect(joined).toHaveLength(N - 1);
    expect(joined[0]!.body).toMatchObject({ reads: 0, joined: { until: expect.any(String) } });

    expect(oneReads).toBeGreaterThan(20);
    // About as often: a look more or less where the loops' clocks fall differently.
    expect(manyReads).toBeLessThanOrEqual(oneReads + 8);
    // The entry was acted on once: one DELETE of its pod, and it is out of the list.
    expect(deletesOf(many.requests, 'by-many')).toHaveLength(1);
    expect(deletesOf(one.requests, 'by-one')).toHaveLength(1);
    expect(await dueEntries(`${ns.name}-many`)).toEqual([]);
  }, 180_000);
});

describe('DUE_TICK_SENDERS (issue 33)', () => {
  const AUDIENCE = 'serving.knative.dev/service/kube-tidy/pod-terminated';
  const sa = (name: string) => `system:serviceaccount:${ns.name}:${name}`;

  async function mint(name: string): Promise<string> {
    await core()
      .createNamespacedServiceAccount({ namespace: ns.name, body: { metadata: { name } } })
      .catch(() => undefined);
    const r = await core().createNamespacedServiceAccountToken({ name, namespace: ns.name, body: { spec: { audiences: [AUDIENCE], expirationSeconds: 600 } } });
    return r.status!.token!;
  }

  it('refuses 403 a tick from an authenticated sender it does not name, reading nothing; the named sender’s tick is taken', async () => {
    const env = {
      SENDER_AUTH: 'kubernetes',
      SENDER_AUTH_AUDIENCE: AUDIENCE,
      SENDER_AUTH_SUBJECTS: `${sa('pod-events')},${sa('ticker')}`,
      DUE_TICK_SENDERS: sa('ticker'),
      DUE_NAMESPACE: `${ns.name}-senders`,
      // A short hold: the taken tick answers in a few seconds.
      REQUEST_DEADLINE_SECONDS: '6',
    };
    const { rt, requests } = await countedRuntime(POLICY, env);
    const parts = await podTerminated.setup(rt);
    const name = `due-senders-${process.pid}`;
    http(name, serveTarget(podTerminated, parts, rt, senderAuthFromEnv(env, { kubeConfig: sharedCluster().kubeConfig() })));
    const agent = supertest(getTestServer(name));
    const tick = async (token?: string) => {
      const ping = pingRequest('pod-terminated');
      return send(agent, token ? { ...ping, headers: { ...ping.headers, authorization: `Bearer ${token}` } } : ping);
    };
    try {
      const refused = await tick(await mint('pod-events'));
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatch(/DUE_TICK_SENDERS/);
      expect(refused.body.error).toContain(sa('pod-events'));
      expect((await tick()).status).toBe(401);
      // Nothing was done for either: not one request to the API server from the function's own client.
      expect(requests).toEqual([]);

      const taken = await tick(await mint('ticker'));
      expect(taken.status).toBe(200);
      expect(taken.body).toMatchObject({ outcome: 'ticked' });
      expect(requests.filter(isDueRead).length).toBeGreaterThan(0);
    } finally {
      parts.stop();
    }
  }, 120_000);
});

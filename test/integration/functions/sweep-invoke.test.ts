import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../../../functions/invoke.js';
import { sweep } from '../../../functions/sweep.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { exists, knativeRequest, pingRequest, runPod, runtimeFor, send, serve } from './setup.js';

// sweep and invoke over HTTP: full passes, paginated, within limits, scoped to this file's
// namespace (the cluster is shared with other test files running at the same time).

const ns = testNamespace('fn-sweep');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const TOKEN = 'a-long-enough-test-token';

function policyFor(namespace: string, top: Record<string, unknown> = {}) {
  return policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: ['1-255'], namespaces: { include: [namespace] } } }], {
    evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
    top,
  });
}

const remaining = async () => (await core().listNamespacedPod({ namespace: ns.name })).items.map((p) => p.metadata!.name!).sort();

describe('sweep', () => {
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) await runPod(core(), ns.name, `failed-${i}`, { exitCode: 2 });
    await runPod(core(), ns.name, 'ok', { exitCode: 0 });
    await runPod(core(), ns.name, 'running');
  });

  it('reads pages, stops at maxNoOfPodsToEvictTotal across pages, and reports what it did', async () => {
    const agent = serve(sweep, await runtimeFor(policyFor(ns.name, { maxNoOfPodsToEvictTotal: 3 }), { SWEEP_PAGE_SIZE: '2' }));
    const res = await send(agent, pingRequest());
    expect(res.status).toBe(200);
    expect(res.body.summary).toMatchObject({ selected: 3, outcomes: { deleted: 3 }, stoppedBy: 'limit-total', fieldSelector: 'status.phase=Failed' });
    expect(res.body.summary.pages).toBeGreaterThanOrEqual(2);
    expect((await remaining()).filter((n) => n.startsWith('failed-'))).toHaveLength(2);
  });

  it('takes a plain POST from a scheduler as well, and a second sweep finishes the job', async () => {
    const agent = serve(sweep, await runtimeFor(policyFor(ns.name), { SWEEP_PAGE_SIZE: '2' }));
    const res = await agent.post('/').send({});
    expect(res.status).toBe(200);
    expect(res.body.summary.outcomes).toEqual({ deleted: 2 });
    expect(await remaining()).toEqual(['ok', 'running']);
  });

  it('refuses a pod event with 422', async () => {
    const agent = serve(sweep, await runtimeFor(policyFor(ns.name)));
    const pod = await core().readNamespacedPod({ namespace: ns.name, name: 'ok' });
    const res = await send(agent, knativeRequest('binary', 'update', pod));
    expect(res.status).toBe(422);
  });
});

describe('sweep order across pages', () => {
  const order = testNamespace('fn-sweep-order');

  it('acts on the oldest pods first over the whole cluster, not page by page (one pod a page, a total limit of 1)', async () => {
    // Listed by name, "a-new" comes first; by age, "z-old" does.
    await runPod(core(), order.name, 'z-old', { exitCode: 2 });
    await new Promise((r) => setTimeout(r, 1100)); // creationTimestamp has one-second resolution
    await runPod(core(), order.name, 'a-new', { exitCode: 2 });
    const agent = serve(sweep, await runtimeFor(policyFor(order.name, { maxNoOfPodsToEvictTotal: 1 }), { SWEEP_PAGE_SIZE: '1' }));
    const res = await send(agent, pingRequest());
    expect(res.status).toBe(200);
    // Other files' failed pods share the cluster: more pages, none of them selected.
    expect(res.body.summary).toMatchObject({ selected: 1, outcomes: { deleted: 1 }, kept: 1, stoppedBy: 'limit-total' });
    expect(res.body.summary.pages).toBeGreaterThanOrEqual(2);
    expect(res.body.kept).toEqual([expect.objectContaining({ name: 'a-new', reason: 'limit maxNoOfPodsToEvictTotal reached' })]);
    const left = (await core().listNamespacedPod({ namespace: order.name })).items.map((p) => p.metadata!.name);
    expect(left).toEqual(['a-new']);
  });
});

describe('invoke', () => {
  beforeAll(async () => {
    await runPod(core(), ns.name, 'inv-failed', { exitCode: 7 });
  });

  it('plans by default through the API server dry run and deletes nothing', async () => {
    const agent = serve(invoke, await runtimeFor(policyFor(ns.name), { INVOKE_TOKEN: TOKEN }));
    const res = await agent.post('/').send({ namespaces: [ns.name] });
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('planned');
    expect(res.body.results).toMatchObject([{ name: 'inv-failed', outcome: 'deleted', dryRun: true }]);
    expect(await exists(core(), ns.name, 'inv-failed')).toBeDefined();
  });

  it('plans with a posted policy', async () => {
    const agent = serve(invoke, await runtimeFor(policyFor(ns.name)));
    const posted = policyDoc([{ name: 'PodLifeTime', args: { states: ['Succeeded'] } }], {
      evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
    });
    const res = await agent.post('/').send({ namespaces: [ns.name], policy: posted });
    expect(res.status).toBe(200);
    // The Succeeded pod is bare and FailedBarePods only frees Failed ones: kept, with the reason.
    expect(res.body.kept).toContainEqual(expect.objectContaining({ name: 'ok', reason: 'pod has no owner and is not Failed' }));
  });

  it.each([
    {
      name: 'running without a configured token is forbidden',
      env: {},
      auth: undefined,
      body: { mode: 'run', confirm: true },
      status: 403,
      error: 'running is disabled',
    },
    {
      name: 'running with a wrong token is refused',
      env: { INVOKE_TOKEN: TOKEN },
      auth: 'Bearer wrong-token-of-some-length',
      body: { mode: 'run', confirm: true },
      status: 401,
      error: 'a valid bearer token is required',
    },
    {
      name: 'running without confirmation is refused',
      env: { INVOKE_TOKEN: TOKEN },
      auth: `Bearer ${TOKEN}`,
      body: { mode: 'run' },
      status: 400,
      error: '"confirm": true',
    },
    { name: 'an unknown field is refused', env: {}, auth: undefined, body: { mode: 'plan', nameSpaces: ['x'] }, status: 400, error: 'nameSpaces' },
    {
      name: 'an invalid posted policy is refused with its issues',
      env: {},
      auth: undefined,
      body: { policy: { kind: 'DeschedulerPolicy' } },
      status: 400,
      error: 'invalid policy',
    },
  ])('$name', async ({ env, auth, body, status, error }) => {
    const agent = serve(invoke, await runtimeFor(policyFor(ns.name), env as Record<string, string>));
    let req = agent.post('/');
    if (auth) req = req.set('authorization', auth);
    const res = await req.send(body);
    expect(res.status).toBe(status);
    expect(res.body.error).toContain(error);
    expect(await exists(core(), ns.name, 'inv-failed')).toBeDefined();
  });

  it('runs with the token and confirmation', async () => {
    const agent = serve(invoke, await runtimeFor(policyFor(ns.name), { INVOKE_TOKEN: TOKEN }));
    const res = await agent
      .post('/')
      .set('authorization', `Bearer ${TOKEN}`)
      .send({ mode: 'run', confirm: true, namespaces: [ns.name] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'ran', summary: { outcomes: { deleted: 1 } } });
    expect(await exists(core(), ns.name, 'inv-failed')).toBeUndefined();
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { CloudEvent } from 'cloudevents';
import { httpMessage } from '../../../shared/cloudevents/index.js';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sweep } from '../../../functions/sweep.js';
import { defrag } from '../../../functions/defrag.js';
import { policyDoc } from '../../fixtures/policy.js';
import { CoreV1Api } from '@kubernetes/client-node';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { exists, runPod, runtimeFor, send, serve } from './setup.js';

// Bad input answers 4xx with a message and writes nothing: the answer comes from decoding,
// before any call to the cluster.

const policy = policyDoc([{ name: 'RemoveFailedPods' }]);
const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'x', uid: 'u' } };
const ce = (mode: 'binary' | 'structured', type: string, data: unknown) => httpMessage(new CloudEvent({ type, source: 'https://api', data }), mode);

let pods: ReturnType<typeof serve>;
let sweeps: ReturnType<typeof serve>;
let defrags: ReturnType<typeof serve>;
beforeAll(async () => {
  const rt = await runtimeFor(policy);
  pods = serve(podTerminated, rt);
  sweeps = serve(sweep, rt);
  defrags = serve(defrag, rt);
});

describe('podTerminated refuses bad requests', () => {
  it.each([
    {
      name: 'binary mode without ce-specversion',
      req: { headers: { 'ce-id': '1', 'ce-type': 'dev.knative.apiserver.resource.update', 'ce-source': 's', 'content-type': 'application/json' }, body: '{}' },
      status: 400,
      error: 'ce-specversion',
    },
    // functions-framework's own JSON parser answers this one, before the handler runs.
    { name: 'a body that is not JSON', req: { headers: { 'content-type': 'application/json' }, body: '{"metadata":' }, status: 400, error: undefined },
    { name: 'an unknown CloudEvent type', req: ce('binary', 'com.example.unknown', {}), status: 422, error: 'com.example.unknown' },
    {
      name: 'a resource event without metadata.uid',
      req: ce('structured', 'dev.knative.apiserver.resource.update', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'x' } }),
      status: 400,
      error: 'metadata.uid',
    },
    { name: 'a Job event', req: ce('binary', 'dev.knative.apiserver.resource.update', job), status: 422, error: 'takes Pod events, not Job' },
  ])('$name: $status', async ({ req, status, error }) => {
    const res = await send(pods, req);
    expect(res.status).toBe(status);
    if (error !== undefined) expect(res.body.error).toContain(error);
  });
});

describe('every function takes only POST', () => {
  it.each(['GET', 'PUT', 'DELETE'])('%s answers 405 and starts no sweep', async (method) => {
    for (const agent of [pods, sweeps]) {
      const res = await agent[method.toLowerCase() as 'get' | 'put' | 'delete']('/');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.body.error).toContain(`${method} is not accepted`);
    }
  });
});

describe('sweep refuses bad requests', () => {
  it.each([
    { name: 'a CloudEvent with an unknown type', req: ce('binary', 'com.example.unknown', {}), status: 422 },
    {
      name: 'a structured CloudEvent that is not valid',
      req: { headers: { 'content-type': 'application/cloudevents+json' }, body: '{"type": "x"}' },
      status: 400,
    },
  ])('$name: $status', async ({ req, status }) => {
    const res = await send(sweeps, req);
    expect(res.status).toBe(status);
    expect(typeof res.body.error).toBe('string');
  });
});

describe('defrag refuses CloudEvents that are not ticks', () => {
  // A misrouted pod event used to count as a tick and run a real eviction step.
  it.each([
    {
      name: 'a pod update',
      req: ce('binary', 'dev.knative.apiserver.resource.update', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'x', uid: 'u' } }),
      status: 422,
    },
    { name: 'an unknown CloudEvent type', req: ce('structured', 'com.example.unknown', {}), status: 422 },
  ])('$name: $status', async ({ req, status }) => {
    const res = await send(defrags, req);
    expect(res.status).toBe(status);
    expect(typeof res.body.error).toBe('string');
    expect(res.body.outcome).toBeUndefined();
  });
});

describe('sweep decodes a raw Pub/Sub push (no CloudEvent headers), never takes it for a plain POST', () => {
  // A push subscription pointed at sweep used to run a full pass per message, whatever the
  // message held: the body was never read.
  const ns = testNamespace('sweep-raw-push');
  const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
  let sweepsHere: ReturnType<typeof serve>;
  beforeAll(async () => {
    await runPod(core(), ns.name, 'failed', { exitCode: 2 });
    const here = policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], namespaces: { include: [ns.name] } } }], {
      evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
    });
    sweepsHere = serve(sweep, await runtimeFor(here));
  }, 120_000);

  const json = { 'content-type': 'application/json' };
  const subscription = 'projects/p/subscriptions/kube-tidy-sweep';
  it.each([
    {
      name: 'data that is not base64',
      body: { message: { data: '%%% not base64 %%%', messageId: '1' }, subscription },
      status: 400,
      error: 'body.message.data is not valid base64',
    },
    { name: 'no data', body: { message: { messageId: '2' }, subscription }, status: 400, error: 'body.message.data' },
    {
      name: 'data that is not JSON',
      body: { message: { data: Buffer.from('tick').toString('base64'), messageId: '3' }, subscription },
      status: 400,
      error: 'body.message.data (base64-decoded) is not valid JSON',
    },
    {
      name: 'a message that names no event type',
      body: { message: { data: Buffer.from('{"run":"now"}').toString('base64'), messageId: '4' }, subscription },
      status: 422,
      error: 'cannot tell what the Pub/Sub message carries',
    },
    { name: 'an envelope without its subscription', body: { message: { data: 12 } }, status: 400, error: 'body.message.data' },
  ])('$name: $status, and no pass runs', async ({ body, status, error }) => {
    const res = await send(sweepsHere, { headers: json, body: JSON.stringify(body) });
    expect(res.status).toBe(status);
    expect(res.body.error).toContain(error);
    expect(res.body.outcome).toBeUndefined();
    expect(await exists(core(), ns.name, 'failed')).toBeDefined();
  });

  it('a plain POST is still a tick: the same sweep removes the pod', async () => {
    const res = await send(sweepsHere, { headers: json, body: '{}' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'swept', summary: { outcomes: { deleted: 1 } } });
    await waitFor(`${ns.name}/failed gone`, async () => ((await exists(core(), ns.name, 'failed')) === undefined ? true : undefined));
  });
});

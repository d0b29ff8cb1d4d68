// Issue 45, item 1: the event is the read where it can be trusted. podTerminated with sender
// authentication on (real ServiceAccount tokens) and TRUSTED_POD_SENDERS naming the source: the
// source's Resource-mode pod is decided on and DELETEd at its uid and resourceVersion, one
// request; a 409 (the pod changed since the source read it) reads the stored pod and decides
// again, once. Anyone else (an authenticated sender not named), or Reference mode, is read
// first: a GET and the DELETE. Every request the function sends is seen (the client's
// onRequest); the Kubernetes Events it records are left out (bounded apart: issue 45, item 2).
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { CloudEvent } from 'cloudevents';
import { beforeAll, describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { httpMessage, type HttpMessage } from '../../../shared/cloudevents/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { countedRuntime, serveParts, type Seen } from '../due/setup.js';
import { createStaticPod } from '../adversary/env.js';
import { exists, knativeRequest, send } from './setup.js';
import { mint, sa, trustedEnv } from './trust-modes.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { pino } from 'pino';
import supertest from 'supertest';
import { startRuntime } from '../../../shared/runtime/runtime.js';
import type { SenderAuth } from '../../../shared/serve/http/auth.js';
import { serveTarget } from '../../../shared/serve/http/functions-framework.js';

const ns = testNamespace('fn-trust');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

// Failed pods labelled tidy=yes exiting 3 go at once; a pod that loses the label is no longer selected.
const POLICY = policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: [3], labelSelector: { matchLabels: { tidy: 'yes' } } } }], {
  evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
});

let agent: ReturnType<typeof serveParts>;
let requests: Seen[];
const token: Record<'source' | 'intruder', string> = { source: '', intruder: '' };

beforeAll(async () => {
  const counted = await countedRuntime(POLICY, trustedEnv(ns.name));
  requests = counted.requests;
  agent = serveParts(podTerminated, await podTerminated.setup(counted.rt), counted.rt);
  token.source = await mint(ns.name, 'source');
  token.intruder = await mint(ns.name, 'intruder');
});

/** `req` sent as `who`: its answer, and the requests the function sent meanwhile to the API server, Events left out. */
async function sendAs(who: 'source' | 'intruder', req: HttpMessage): Promise<{ body: Record<string, unknown>; sent: string[] }> {
  const from = requests.length;
  const res = await send(agent, { ...req, headers: { ...req.headers, authorization: `Bearer ${token[who]}` } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const sent = requests
    .slice(from)
    .filter((r) => !r.path.startsWith('/apis/events.k8s.io/'))
    .map((r) => `${r.method} ${r.path.replace(`/api/v1/namespaces/${ns.name}/`, '')}`);
  return { body: res.body as Record<string, unknown>, sent };
}

// Static pods (never scheduled, their status written once): nothing but the test changes them, so a count is exact.
const failed = (name: string) => createStaticPod(core(), ns.name, name, { phase: 'Failed', exitCode: 3, labels: { tidy: 'yes' } });
const running = (name: string) => createStaticPod(core(), ns.name, name, { phase: 'Running', labels: { tidy: 'yes' } });
const update = (pod: V1Pod) => knativeRequest('binary', 'update', pod);
const touch = (name: string) =>
  core().patchNamespacedPod({ namespace: ns.name, name, body: [{ op: 'add', path: '/metadata/labels/touched', value: 'yes' }] }, jsonPatch);

describe('requests per removal (issue 45: 3.00 on main, GET + DELETE + one Event)', () => {
  it('the named source’s event is the read: one request, the DELETE at the event’s uid and resourceVersion', async () => {
    // A first event warms the process (the client, the issuer's keys): what is counted is one removal's.
    await sendAs('source', update(await failed('warm')));
    const pod = await failed('one-request');
    const { body, sent } = await sendAs('source', update(pod));
    expect(body).toMatchObject({ outcome: 'deleted', result: { strategy: 'PodLifeTime', action: 'delete' } });
    expect(sent).toEqual(['DELETE pods/one-request']);
    expect(await exists(core(), ns.name, 'one-request')).toBeUndefined();
  });

  it('an authenticated sender the setting does not name is read first: a GET and the DELETE', async () => {
    const { body, sent } = await sendAs('intruder', update(await failed('two-requests')));
    expect(body.outcome).toBe('deleted');
    expect(sent).toEqual(['GET pods/two-requests', 'DELETE pods/two-requests']);
  });

  it('Reference mode from the named source carries no pod: a GET and the DELETE', async () => {
    await failed('by-reference');
    const ref = httpMessage(
      new CloudEvent({
        type: 'dev.knative.apiserver.ref.update',
        source: 'https://api',
        data: { apiVersion: 'v1', kind: 'Pod', name: 'by-reference', namespace: ns.name },
      }),
    );
    const { body, sent } = await sendAs('source', ref);
    expect(body.outcome).toBe('deleted');
    expect(sent).toEqual(['GET pods/by-reference', 'DELETE pods/by-reference']);
  });
});

describe('the named source’s stale, replayed or reordered event (409, then the stored pod decides)', () => {
  it('a pod changed since the event (still selected): 409, read, decided again as stored, removed', async () => {
    const pod = await failed('changed-selected');
    await touch('changed-selected');
    const { body, sent } = await sendAs('source', update(pod));
    expect(body.outcome).toBe('deleted');
    expect(sent).toEqual(['DELETE pods/changed-selected', 'GET pods/changed-selected', 'DELETE pods/changed-selected']);
    await waitFor('pod gone', async () => !(await exists(core(), ns.name, 'changed-selected')));
  });

  it('an event whose copy is older than the stored pod, which no longer selects: 409, read, stale, nothing removed', async () => {
    const pod = await failed('copy-older');
    await core().patchNamespacedPod({ namespace: ns.name, name: 'copy-older', body: [{ op: 'remove', path: '/metadata/labels/tidy' }] }, jsonPatch);
    const { body, sent } = await sendAs('source', update(pod));
    expect(body.outcome).toBe('stale');
    expect(body.why).toMatch(/^the pod changed since its removal was decided \(resourceVersion \d+, stored \d+\); as stored: no strategy selects it$/);
    expect(sent).toEqual(['DELETE pods/copy-older', 'GET pods/copy-older']);
    expect((await exists(core(), ns.name, 'copy-older'))?.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('an event replayed after the pod was recreated under the same name: the uid precondition fails, nothing removed', async () => {
    const old = await failed('replayed');
    await core().deleteNamespacedPod({ namespace: ns.name, name: 'replayed', gracePeriodSeconds: 0 });
    await waitFor('old pod gone', async () => !(await exists(core(), ns.name, 'replayed')));
    const fresh = await failed('replayed');
    const { body, sent } = await sendAs('source', update(old));
    expect(body).toMatchObject({ outcome: 'stale', why: `the event was about uid ${old.metadata!.uid}; the pod of that name now is ${fresh.metadata!.uid}` });
    expect(sent).toEqual(['DELETE pods/replayed', 'GET pods/replayed']);
    expect((await exists(core(), ns.name, 'replayed'))?.metadata?.uid).toBe(fresh.metadata!.uid);
  });
});

describe('forged: what naming a source trusts', () => {
  /** The stored running pod, claimed to have failed (exit 3) at its current uid and resourceVersion. */
  const claimedFailed = (pod: V1Pod): V1Pod => ({
    ...pod,
    status: { ...pod.status, phase: 'Failed', containerStatuses: [{ ...pod.status!.containerStatuses![0]!, state: { terminated: { exitCode: 3 } } }] },
  });

  it('from an authenticated sender not named, a running pod claimed failed is read first and nothing is removed', async () => {
    const pod = await running('forged-intruder');
    const { body, sent } = await sendAs('intruder', update(claimedFailed(pod)));
    expect(body.outcome).toBe('nothing-to-do');
    expect(sent).toEqual(['GET pods/forged-intruder']);
    expect((await exists(core(), ns.name, 'forged-intruder'))?.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('from the named source itself, the claim is taken as the watch’s: the pod is removed at the version it names (docs/safety.md)', async () => {
    const pod = await running('forged-source');
    const { body, sent } = await sendAs('source', update(claimedFailed(pod)));
    expect(body.outcome).toBe('deleted');
    expect(sent).toEqual(['DELETE pods/forged-source']);
  });
});

describe('a process that loads its client on first need (lazyKube, as the production server starts podTerminated)', () => {
  it('takes the named source’s pod as the read from its first event, the client loaded before the write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-trust-'));
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(POLICY));
    // Sender authentication here is an OIDC issuer's, which never touches the cluster: nothing else loads the client first.
    const env = { ...trustedEnv(ns.name), SENDER_AUTH: 'oidc', POLICY_FILE: join(dir, 'policy.json'), KUBECONFIG: sharedCluster().kubeconfigPath };
    const rt = await startRuntime(env, { log: pino({ level: 'silent' }) }, { lazyKube: true });
    const named: SenderAuth = {
      platform: 'oidc',
      authenticate: async (h) => ({ ok: true, subject: String(h.authorization).slice('Bearer '.length), issuer: 'test' }),
      warm: async () => undefined,
      summary: 'the bearer names the sender (test)',
    };
    const name = `lazy-${process.pid}`;
    http(name, serveTarget(podTerminated, await podTerminated.setup(rt), rt, named));
    const pod = await failed('lazy');
    const req = update(pod);
    const res = await send(supertest(getTestServer(name)), { ...req, headers: { ...req.headers, authorization: `Bearer ${sa(ns.name, 'source')}` } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.outcome).toBe('deleted');
  });
});

// The resolver decides a request with no transport: a decoded input or event in, a status,
// headers and a body out; no Express, no HTTP object anywhere. Its 4xx lines are sampled.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ObjectEvent, TickEvent } from '../cloudevents/index.js';
import { createLogger } from '../log.js';
import { Notifier } from '../notify/notifier.js';
import { BadRequestError, LOG_4XX_PER_WINDOW, resolver, type ResolveContext } from './resolve.js';
import { defineTarget, type Input } from './target.js';
import { MetricsRecorder } from '../metrics/recorder.js';

function context() {
  const lines: { msg: string; status?: number; suppressed?: number; level: number }[] = [];
  const log = createLogger({ env: {}, destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
  const ctx: ResolveContext = { log, deadlineMs: 5_000, dryRun: true, policyError: () => undefined, notifier: Notifier.off(), metrics: MetricsRecorder.off() };
  return { ctx, lines };
}

const pod = (namespace?: string): ObjectEvent => ({
  type: 'object',
  verb: 'update',
  object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', uid: 'u1', resourceVersion: '7', ...(namespace ? { namespace } : {}) } },
  origin: { bridge: 'knative-apiserversource', transport: 'plain' },
});
const tick: TickEvent = { type: 'tick', data: {}, origin: { bridge: 'knative-pingsource', transport: 'plain' } };

const probe = (handle: (input: Input) => Promise<{ outcome: string; [k: string]: unknown }>) =>
  defineTarget({
    name: 'probe',
    accepts: { kinds: ['Pod'], ticks: false, hint: 'probe takes Pod events' },
    needs: { policy: false, cluster: 'on-demand' },
    setup: () => ({}),
    handle,
  });

afterEach(() => vi.useRealTimers());

describe('the resolver, without any HTTP object', () => {
  it('answers a decoded Pod event: the handler sees the checked input, the body gets the common fields', async () => {
    const { ctx } = context();
    const seen: Input[] = [];
    const r = resolver(
      probe(async (input) => (seen.push(input), { outcome: 'nothing-to-do' })),
      {},
      ctx,
    );
    const out = await r.event(pod('ml'));
    expect(out).toEqual({ status: 200, headers: {}, body: { target: 'probe', outcome: 'nothing-to-do', dryRun: true } });
    expect(seen).toMatchObject([{ type: 'object', namespace: 'ml', name: 'a' }]);
  });

  it.each([
    { sentence: 'a kind it does not take is 422', event: { ...pod('ml'), object: { ...pod('ml').object, kind: 'Job' } }, status: 422 },
    { sentence: 'a tick to a target without ticks is 422', event: tick, status: 422 },
    { sentence: 'an event without a namespace is 400', event: pod(), status: 400 },
  ])('refuses before the handler runs: $sentence', async ({ event, status }) => {
    const { ctx } = context();
    const handle = vi.fn(async () => ({ outcome: 'x' }));
    const out = await resolver(probe(handle), {}, ctx).event(event);
    expect(out.status).toBe(status);
    expect(out.body).toMatchObject({ target: 'probe' });
    expect(handle).not.toHaveBeenCalled();
  });

  it('a transient failure in the answer is 503 with Retry-After; a handler’s own 4xx keeps its status', async () => {
    const { ctx } = context();
    const transient = await resolver(
      probe(async () => ({ outcome: 'incomplete', failures: { transient: 1, refused: 0 } })),
      {},
      ctx,
    ).input({ type: 'tick' });
    expect(transient).toMatchObject({ status: 503, headers: { 'Retry-After': '10' } });
    const refused = await resolver(
      probe(async () => {
        throw new BadRequestError(403, 'no');
      }),
      {},
      ctx,
    ).event(pod('ml'));
    expect(refused).toEqual({ status: 403, headers: {}, body: { target: 'probe', error: 'no' } });
  });

  it('decodes a request from its headers and parsed body alone (no Express)', async () => {
    const { ctx } = context();
    const out = await resolver(
      probe(async () => ({ outcome: 'ok' })),
      {},
      ctx,
    ).request({
      headers: {
        'ce-id': '1',
        'ce-source': 's',
        'ce-type': 'dev.knative.apiserver.resource.update',
        'ce-specversion': '1.0',
        'content-type': 'application/json',
      },
      body: pod('ml').object,
    });
    expect(out.status).toBe(200);
  });
});

describe('the handled line', () => {
  it('says when a pod that only waits on time was scheduled for, beside its outcome', async () => {
    const { ctx, lines } = context();
    const at = '2026-11-28T12:00:20.000Z';
    const r = resolver(
      probe(async () => ({ outcome: 'nothing-to-do', pod: 'ml/a', why: 'w', eligibleAt: at, scheduled: at, kept: [] })),
      {},
      ctx,
    );
    expect((await r.event(pod('ml'))).status).toBe(200);
    expect(lines.filter((l) => l.msg === 'handled')).toMatchObject([{ outcome: 'nothing-to-do', pod: 'ml/a', eligibleAt: at, scheduled: at }]);
  });
});

describe('a tick says who sent it', () => {
  const ticker = (seen: Input[]) =>
    defineTarget({
      name: 'ticker',
      accepts: { ticks: true, hint: 'ticks' },
      needs: { policy: false, cluster: 'on-demand' },
      setup: () => ({}),
      handle: async (input: Input) => (seen.push(input), { outcome: 'ticked' }),
    });
  const ping = {
    headers: { 'ce-id': '1', 'ce-source': '/apis/v1/namespaces/kube-tidy/pingsources/p', 'ce-type': 'dev.knative.sources.ping', 'ce-specversion': '1.0' },
    body: '',
  };

  it('a request’s tick carries the sender check’s subject, anonymous when the transport named none; the process’s own tick none', async () => {
    const { ctx } = context();
    const seen: Input[] = [];
    const r = resolver(ticker(seen), {}, ctx);
    await r.request({ ...ping, sender: 'system:serviceaccount:kube-tidy:tick' });
    await r.request(ping);
    await r.event(tick);
    expect(seen.map((i) => (i.type === 'tick' ? (i.sender ?? 'none') : i.type))).toEqual(['system:serviceaccount:kube-tidy:tick', 'anonymous', 'none']);
  });

  it('a request’s object event carries the sender check’s subject too (podTerminated’s TRUSTED_POD_SENDERS); one a host hands over none', async () => {
    const { ctx } = context();
    const seen: Input[] = [];
    const pods = defineTarget({
      name: 'pods',
      accepts: { kinds: ['Pod'], hint: 'pods' },
      needs: { policy: false, cluster: 'on-demand' },
      setup: () => ({}),
      handle: async (input: Input) => (seen.push(input), { outcome: 'nothing-to-do' }),
    });
    const r = resolver(pods, {}, ctx);
    const event = {
      headers: {
        'ce-id': '1',
        'ce-source': 'https://api',
        'ce-type': 'dev.knative.apiserver.resource.update',
        'ce-specversion': '1.0',
        'content-type': 'application/json',
      },
      body: pod('n').object,
    };
    await r.request({ ...event, sender: 'system:serviceaccount:kube-tidy:source' });
    await r.request(event);
    await r.event(pod('n'));
    expect(seen.map((i) => (i.type === 'object' ? (i.sender ?? 'none') : i.type))).toEqual(['system:serviceaccount:kube-tidy:source', 'anonymous', 'none']);
  });
});

describe('4xx answers are logged as a sample', () => {
  it(`a flood of 4xx logs at most ${LOG_4XX_PER_WINDOW} lines per status a minute, then one summary`, async () => {
    vi.useFakeTimers();
    const { ctx, lines } = context();
    const r = resolver(
      probe(async () => ({ outcome: 'x' })),
      {},
      ctx,
    );
    for (let i = 0; i < 50; i++) expect((await r.event(pod())).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await r.event(tick)).status).toBe(422);
    const notHandled = () => lines.filter((l) => l.msg === 'not handled');
    expect(notHandled().filter((l) => l.status === 400)).toHaveLength(LOG_4XX_PER_WINDOW);
    expect(notHandled().filter((l) => l.status === 422)).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(60_000);
    const summaries = lines.filter((l) => l.msg.startsWith('not handled: more answers'));
    expect(summaries).toMatchObject([{ status: 400, suppressed: 50 - LOG_4XX_PER_WINDOW }]);
    expect(lines.filter((l) => l.status === 400)).toHaveLength(LOG_4XX_PER_WINDOW + 1);
  });

  it('5xx answers are each logged', async () => {
    const { ctx, lines } = context();
    const r = resolver(
      probe(async () => {
        throw new Error('boom');
      }),
      {},
      ctx,
    );
    for (let i = 0; i < 8; i++) expect((await r.event(pod('ml'))).status).toBe(500);
    expect(lines.filter((l) => l.msg === 'not handled')).toHaveLength(8);
  });
});

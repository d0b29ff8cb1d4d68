import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toApiServerSourceEvent, type KubeObject } from '../../cloudevents/index.js';
import { backoffDelay, classify, deliver, isRetryableStatus, parseRetryAfter, type Attempt, type RetryPolicy } from './deliver.js';
import { startTestSink, type TestSink } from '../../../test/fixtures/http-sink.js';

const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u-1', resourceVersion: '7' } };
const event = () => toApiServerSourceEvent('update', pod, 'https://127.0.0.1:6443', 'fixed-id');

describe('which answers are retried (Knative Trigger delivery rules)', () => {
  it.each([
    { attempt: { status: 200 }, verdict: 'delivered', sentence: '200 is delivered' },
    { attempt: { status: 202 }, verdict: 'delivered', sentence: '202 is delivered' },
    { attempt: { status: 204 }, verdict: 'delivered', sentence: '204 is delivered' },
    { attempt: { status: 500 }, verdict: 'retry', sentence: '500 is retried' },
    { attempt: { status: 503 }, verdict: 'retry', sentence: '503 is retried' },
    { attempt: { status: 599 }, verdict: 'retry', sentence: 'any 5xx is retried' },
    { attempt: { status: 404 }, verdict: 'retry', sentence: '404 is retried (the function may not be up yet)' },
    { attempt: { status: 408 }, verdict: 'retry', sentence: '408 is retried' },
    { attempt: { status: 409 }, verdict: 'retry', sentence: '409 is retried' },
    { attempt: { status: 429 }, verdict: 'retry', sentence: '429 is retried' },
    { attempt: { status: 400 }, verdict: 'reject', sentence: '400 is rejected: the event itself is wrong' },
    { attempt: { status: 401 }, verdict: 'reject', sentence: '401 is rejected' },
    { attempt: { status: 403 }, verdict: 'reject', sentence: '403 is rejected' },
    { attempt: { status: 415 }, verdict: 'reject', sentence: '415 is rejected' },
    { attempt: { status: 422 }, verdict: 'reject', sentence: '422 is rejected' },
    { attempt: { status: 302 }, verdict: 'reject', sentence: 'a redirect that was not followed is rejected' },
    { attempt: { error: 'ECONNREFUSED', timedOut: false }, verdict: 'retry', sentence: 'no connection is retried' },
    { attempt: { error: 'no answer', timedOut: true }, verdict: 'retry', sentence: 'a timeout is retried' },
  ] as { attempt: Attempt; verdict: string; sentence: string }[])('$sentence', ({ attempt, verdict }) => {
    expect(classify(attempt)).toBe(verdict);
    if ('status' in attempt) expect(isRetryableStatus(attempt.status)).toBe(verdict === 'retry');
  });
});

describe('backoff', () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 1_000 };
  it.each([
    { retry: 1, low: 50, high: 100 },
    { retry: 2, low: 100, high: 200 },
    { retry: 3, low: 200, high: 400 },
    { retry: 4, low: 400, high: 800 },
    { retry: 5, low: 500, high: 1_000 },
    { retry: 30, low: 500, high: 1_000 },
  ])('retry $retry waits between $low and $high ms whatever the jitter', ({ retry, low, high }) => {
    expect(backoffDelay(retry, policy, () => 0)).toBe(low);
    const top = backoffDelay(retry, policy, () => 0.999_999);
    expect(top).toBeLessThanOrEqual(high);
    expect(top).toBeGreaterThan(high - 1);
    for (let i = 0; i < 50; i++) {
      const d = backoffDelay(retry, policy, Math.random);
      expect(d).toBeGreaterThanOrEqual(low);
      expect(d).toBeLessThanOrEqual(high);
    }
  });

  it('honours a Retry-After longer than the backoff, up to the cap', () => {
    expect(backoffDelay(1, policy, () => 0, 700)).toBe(700);
    expect(backoffDelay(1, policy, () => 0, 60_000)).toBe(1_000);
    expect(parseRetryAfter('3')).toBe(3_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe('deliver to a real HTTP sink', () => {
  let sink: TestSink;
  const slept: number[] = [];
  const fast: RetryPolicy = { retries: 3, baseDelayMs: 100, maxDelayMs: 1_000, timeoutMs: 2_000 };
  const opts = () => ({ sink: sink.url, policy: fast, random: () => 0, sleep: async (ms: number) => void slept.push(ms) });
  beforeAll(async () => (sink = await startTestSink()));
  afterAll(() => sink.close());
  beforeEach(() => {
    sink.received.length = 0;
    slept.length = 0;
    sink.delay(0);
  });

  it('sends binary mode as Knative does: ce-* headers and the object as the JSON body', async () => {
    sink.answer([202]);
    const r = await deliver(event(), opts());
    expect(r).toEqual({ outcome: 'delivered', attempts: 1, status: 202 });
    const [got] = sink.received;
    expect(got?.headers['ce-type']).toBe('dev.knative.apiserver.resource.update');
    expect(got?.headers['ce-id']).toBe('fixed-id');
    expect(got?.headers['ce-subject']).toBe('/apis/v1/namespaces/ns/pods/p');
    expect(got?.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(got?.body ?? '')).toEqual(pod);
  });

  it('retries 503 twice, then is delivered on the third attempt with the same id, backing off 50 then 100 ms', async () => {
    sink.answer([503, 503, 200]);
    const r = await deliver(event(), opts());
    expect(r).toMatchObject({ outcome: 'delivered', attempts: 3 });
    expect(sink.received.map((x) => x.headers['ce-id'])).toEqual(['fixed-id', 'fixed-id', 'fixed-id']);
    expect(slept).toEqual([50, 100]);
  });

  it('does not retry 400 and keeps what the sink said', async () => {
    sink.answer([400, 200]);
    const r = await deliver(event(), opts());
    expect(r).toEqual({ outcome: 'rejected', attempts: 1, status: 400, error: 'sink says 400' });
    expect(sink.received).toHaveLength(1);
  });

  it('gives up after the retry limit: 1 + retries attempts', async () => {
    sink.answer([500]);
    const r = await deliver(event(), opts());
    expect(r).toMatchObject({ outcome: 'failed', attempts: 4, status: 500 });
    expect(sink.received).toHaveLength(4);
    expect(slept).toEqual([50, 100, 200]);
  });

  it('retries a sink that does not answer within the timeout', async () => {
    sink.answer([200]);
    sink.delay(300);
    const r = await deliver(event(), { ...opts(), policy: { ...fast, retries: 1, timeoutMs: 100 } });
    expect(r).toEqual({ outcome: 'failed', attempts: 2, error: 'no answer within 100 ms' });
  });

  it('retries when nothing listens, and reports the connection error', async () => {
    const gone = await startTestSink();
    await gone.close();
    const r = await deliver(event(), { ...opts(), sink: gone.url, policy: { ...fast, retries: 2 } });
    expect(r).toMatchObject({ outcome: 'failed', attempts: 3, error: 'ECONNREFUSED' });
  });

  it('stops retrying once aborted', async () => {
    sink.answer([503]);
    const ac = new AbortController();
    const r = await deliver(event(), { ...opts(), signal: ac.signal, sleep: async () => ac.abort() });
    expect(r).toMatchObject({ outcome: 'aborted', attempts: 1, status: 503 });
    expect(sink.received).toHaveLength(1);
  });
});

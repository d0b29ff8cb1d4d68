// The hostile corpus (corpus.ts) against every target, as real processes from the production
// entry with their own ServiceAccounts, on the real API server. Each case: the status class it
// must get, and no write outside the policy as applied to the pods as STORED at that moment
// (the audit log says what was sent, refused or not). Every pod write must carry uid and
// resourceVersion preconditions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNamespace } from '../../harness/index.js';
import { CORPUS, type Expect } from './corpus.js';
import { adversary, allowedFor, TARGETS, wrongWrites, type Adversary } from './env.js';
import { post } from './wire.js';

const ns = testNamespace('adv-corpus');
let env: Adversary;
const statuses: Record<string, number> = {};

beforeAll(async () => {
  env = await adversary(ns.name, TARGETS);
  for (const name of ['victim', 'victim-2']) await env.staticPod(name, { phase: 'Failed', labels: { tidy: 'yes' } });
  await env.staticPod('decoy-running', { phase: 'Running', labels: { tidy: 'yes' } });
  await env.staticPod('decoy-pending', { phase: 'Pending', labels: { tidy: 'yes' } });
  await env.staticPod('decoy-unlabelled', { phase: 'Failed' });
  await env.staticPod('decoy-succeeded', { phase: 'Succeeded', labels: { tidy: 'no' } });
}, 180_000);
afterAll(async () => {
  console.log(`[adversary] corpus: ${CORPUS.length} requests, status codes ${JSON.stringify(statuses)}`);
  await env?.stop();
});

const inClass = (status: number, e: Expect) =>
  e === '4xx' ? status >= 400 && status < 500 : e === '2xx' ? status >= 200 && status < 300 : status > 0 && status < 500;

describe('the hostile corpus', () => {
  it('has at least 150 requests across every target', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(150);
    expect(new Set(CORPUS.map((c) => c.target))).toEqual(new Set(TARGETS));
  });

  for (const c of CORPUS) {
    it(`${c.target}: ${c.sentence} (${c.expect}) and nothing outside the policy is written`, async () => {
      const selected = await env.selectedNow();
      const mark = env.mark();
      const r = await post(env.fn[c.target]!.url, c.wire(env.ns), 30_000);
      const writes = await env.writesSince(mark);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      const wrong = wrongWrites(writes, allowedFor(env, c.target, selected));
      expect(wrong, wrong.join('\n')).toEqual([]);
      expect(inClass(r.status, c.expect), `${r.status} ${r.body.slice(0, 300)}`).toBe(true);
    });
  }
});

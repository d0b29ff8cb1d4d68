// A ledger that is not a ledger (issue 33). The outside campaign's case: under
// maxNoOfPodsToEvictTotal 5, 2 pods removed, then the ledger's value replaced by a truncated
// document; the next 20 events removed 5 more. Now: none is removed, each is deferred with a
// reason that names the ledger, the ledger is rebuilt blind (readable again, the bad text kept
// for the person who looks) and said once as a Warning Event in its namespace. The same for a
// ledger deleted, or replaced by another object, under a running instance; a fresh instance
// then reads the blind rebuild and defers too. Under abort rules the trips are unknown: nothing
// is removed until a person resumes with invoke's override. Once the window under way ends,
// removals go on within the limit as before.
import { EventsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../../../functions/invoke.js';
import { podTerminated } from '../../../functions/pod-terminated.js';
import type { V1Pod } from '@kubernetes/client-node';
import { BRAKES_NAME } from '../../../shared/brakes/io/store.js';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { knativeRequest, runtimeFor, send, serve } from '../functions/setup.js';
import { core, failedPolicy, makePods, podNames, range, storedLedger, windowWithRoom } from './helpers.js';

const ns = testNamespace('brakes-unreadable');
// Each case's ledger in a namespace of its own (testNamespace makes them around the file).
const homes = {
  trunc: testNamespace('brakes-unreadable-trunc'),
  empty: testNamespace('brakes-unreadable-empty'),
  gone: testNamespace('brakes-unreadable-gone'),
  swap: testNamespace('brakes-unreadable-swap'),
  abort: testNamespace('brakes-unreadable-abort'),
  later: testNamespace('brakes-unreadable-later'),
};
const TOKEN = 'a-long-enough-test-token';
const ABORT_LABELS = { group: 'abort' };
const runtimes: Runtime[] = [];
let pods: Map<string, V1Pod>;

async function instance(policy: unknown, home: string) {
  const rt = await runtimeFor(policy, { BRAKES_NAMESPACE: home, INVOKE_TOKEN: TOKEN });
  runtimes.push(rt);
  return { rt, agent: serve(podTerminated, rt), invoke: serve(invoke, rt) };
}
const event = (agent: ReturnType<typeof serve>, name: string) => send(agent, knativeRequest('binary', 'update', pods.get(name)!));
const left = async (prefix: string) => (await podNames(ns.name)).filter((n) => n.startsWith(`${prefix}-`));
/** Writes `text` as the ledger's value, as another tool would (created if no removal needed one yet). */
const setLedger = (home: string, text: string) =>
  core()
    .patchNamespacedConfigMap({ namespace: home, name: BRAKES_NAME, body: [{ op: 'replace', path: '/data', value: { 'ledger.json': text } }] })
    .catch(() => core().createNamespacedConfigMap({ namespace: home, body: { metadata: { name: BRAKES_NAME }, data: { 'ledger.json': text } } }));
const eventsOf = async (home: string, reason: string) =>
  (await sharedCluster().kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: home })).items.filter((e) => e.reason === reason);
const rebuiltEvents = (home: string) => eventsOf(home, 'LedgerRebuilt');

beforeAll(async () => {
  const [made, labelled] = await Promise.all([
    makePods(ns.name, [...range('trunc', 22), ...range('empty', 4), ...range('gone', 6), ...range('swap', 6), ...range('later', 2)], { exitCode: 137 }),
    makePods(ns.name, range('abort', 3), { exitCode: 137, labels: ABORT_LABELS }),
  ]);
  pods = new Map([...made, ...labelled].map((p) => [p.metadata!.name!, p]));
}, 180_000);
afterAll(() => {
  for (const rt of runtimes) rt.brakes().close();
});

describe('a ledger whose value is not a ledger', () => {
  it('stops the removals it guards, says why, and is rebuilt blind: 2 removed before, none of the next 20', async () => {
    const { top } = windowWithRoom(120_000);
    const home = homes.trunc.name;
    const policy = failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 5, ...top });
    const a = await instance(policy, home);
    for (const name of range('trunc', 2)) expect((await event(a.agent, name)).body.outcome).toBe('deleted');
    await a.rt.brakes().settle();
    await setLedger(home, '{"windows": [1,2,');

    // A second instance (a fresh process) and the first one, alternately.
    const b = await instance(policy, home);
    const answers = [];
    for (const [i, name] of range('trunc', 20, 2).entries()) answers.push((await event(i % 2 ? a.agent : b.agent, name)).body);
    expect(answers.map((x) => x.outcome)).toEqual(Array(20).fill('deferred'));
    expect(answers[0].deferred).toMatchObject({ kind: 'ledger', budget: 'maxNoOfPodsToEvictTotal' });
    expect(answers[0].deferred.why).toMatch(/the brakes' ledger was unreadable \(ledger\.json: not JSON.*\) and rebuilt at/);
    expect(await left('trunc')).toHaveLength(20);

    const stored = await storedLedger(home);
    expect(stored.blind).toMatchObject({ why: expect.stringMatching(/^unreadable/), trips: true, excerpt: '{"windows": [1,2,' });
    const said = await waitFor('the LedgerRebuilt Event', async () => ((await rebuiltEvents(home)).length > 0 ? rebuiltEvents(home) : undefined), {
      timeoutMs: 10_000,
      intervalMs: 200,
    });
    expect(said).toHaveLength(1);
    expect(said[0]!.type).toBe('Warning');
    expect(said[0]!.note).toMatch(/kube-tidy-brakes was unreadable/);
    // The deferrals themselves are said once per budget and window, as a blind window's, not a spent one's.
    const deferredSaid = await waitFor(
      'the BudgetUnknown Event',
      async () => ((await eventsOf(home, 'BudgetUnknown')).length > 0 ? eventsOf(home, 'BudgetUnknown') : undefined),
      {
        timeoutMs: 10_000,
        intervalMs: 200,
      },
    );
    expect(deferredSaid[0]!.note).toMatch(/ledger was unreadable .* counts as spent/);
    expect(await eventsOf(home, 'BudgetExhausted')).toEqual([]);
  });
});

describe('a ledger emptied (its data removed, the ConfigMap kept)', () => {
  it('is not taken as a new ledger: rebuilt blind, the next removals deferred', async () => {
    const { top } = windowWithRoom(120_000);
    const home = homes.empty.name;
    const policy = failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 5, ...top });
    const a = await instance(policy, home);
    for (const name of range('empty', 2)) expect((await event(a.agent, name)).body.outcome).toBe('deleted');
    await a.rt.brakes().settle();
    await core().patchNamespacedConfigMap({ namespace: home, name: BRAKES_NAME, body: [{ op: 'remove', path: '/data' }] });
    const b = await instance(policy, home);
    const answers = [(await event(b.agent, 'empty-2')).body, (await event(b.agent, 'empty-3')).body];
    expect(answers.map((x) => x.outcome)).toEqual(['deferred', 'deferred']);
    expect(answers[0].deferred.why).toMatch(/ledger was unreadable \(ledger\.json: missing\)/);
    expect(await left('empty')).toEqual(range('empty', 2, 2));
    expect((await storedLedger(home)).blind?.why).toMatch(/^unreadable/);
  });
});

describe('a ledger deleted or replaced under a running instance', () => {
  for (const how of ['deleted', 'replaced'] as const)
    it(`${how}: the instance that saw it rebuilds it blind, and a fresh instance then defers too`, async () => {
      const prefix = how === 'deleted' ? 'gone' : 'swap';
      const { top } = windowWithRoom(120_000);
      const home = homes[prefix].name;
      const policy = failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 5, ...top });
      const a = await instance(policy, home);
      for (const name of range(prefix, 2)) expect((await event(a.agent, name)).body.outcome).toBe('deleted');
      await a.rt.brakes().settle();
      await core().deleteNamespacedConfigMap({ namespace: home, name: BRAKES_NAME });
      // Another tool writes an empty, well-formed ledger in its place.
      if (how === 'replaced')
        await core().createNamespacedConfigMap({
          namespace: home,
          body: { metadata: { name: BRAKES_NAME }, data: { 'ledger.json': '{"counts":{},"holds":{},"trips":{}}' } },
        });
      // Past the instance's cache (2 s by default), so it reads the ledger again.
      await new Promise((r) => setTimeout(r, 2_100));
      const seenBy = (await event(a.agent, `${prefix}-2`)).body;
      expect(seenBy.outcome).toBe('deferred');
      expect(seenBy.deferred.why).toContain(`ledger was ${how}`);
      const b = await instance(policy, home);
      const fresh = await Promise.all(range(prefix, 3, 3).map(async (name) => (await event(b.agent, name)).body.outcome));
      expect(fresh).toEqual(['deferred', 'deferred', 'deferred']);
      expect(await left(prefix)).toEqual(range(prefix, 4, 2));
      expect((await storedLedger(home)).blind?.why).toMatch(new RegExp(`^${how}`));
    });
});

describe('trips the ledger can no longer vouch for', () => {
  it('under abort rules nothing is removed until a person resumes with invoke’s override', async () => {
    const home = homes.abort.name;
    // Only the labelled pods: the person's resume below runs a pass over the namespace.
    const policy = failedPolicy([ns.name], { kubeTidy: { brakes: { abort: [{ percent: 90, scope: 'namespace' }] } } }, ABORT_LABELS);
    const a = await instance(policy, home);
    expect((await event(a.agent, 'abort-0')).body.outcome).toBe('deleted');
    await a.rt.brakes().settle();
    await setLedger(home, 'not a ledger');
    const b = await instance(policy, home);
    const held = (await event(b.agent, 'abort-1')).body;
    expect(held.outcome).toBe('deferred');
    expect(held.deferred).toMatchObject({ kind: 'ledger', budget: 'kubeTidy.brakes.abort', scope: 'cluster' });
    expect(held.deferred.why).toMatch(/until a person resumes with invoke's override/);

    const resumed = await b.invoke
      .post('/')
      .set('authorization', `Bearer ${TOKEN}`)
      .send({ mode: 'run', confirm: true, override: 'abort', namespaces: [ns.name] });
    expect(resumed.status).toBe(200);
    expect(resumed.body.summary).toMatchObject({ outcomes: { deleted: 2 }, brakes: { resumed: 1 } });
    expect((await storedLedger(home)).blind?.trips).toBe(false);
    expect(await left('abort')).toEqual([]);
  });
});

describe('when the window under way ends', () => {
  it('removes within the limit again', async () => {
    const home = homes.later.name;
    const windowMs = 8_000;
    // Far enough from a boundary that the corruption and the first event fall in one window.
    const intoWindow = Date.now() % windowMs;
    if (intoWindow > windowMs - 4_000) await new Promise((r) => setTimeout(r, windowMs - intoWindow + 100));
    const policy = failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 5, kubeTidy: { brakes: { window: '8s' } } });
    const a = await instance(policy, home);
    expect((await event(a.agent, 'later-0')).body.outcome).toBe('deleted');
    await a.rt.brakes().settle();
    await setLedger(home, '[]');
    const held = (await event(a.agent, 'later-1')).body;
    expect(held.outcome).toBe('deferred');
    const freesAt = Date.parse(held.deferred.freesAt);
    await new Promise((r) => setTimeout(r, Math.max(0, freesAt - Date.now()) + 200));
    expect((await event(a.agent, 'later-1')).body.outcome).toBe('deleted');
  });
});

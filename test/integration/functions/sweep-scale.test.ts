// The sweep at scale, on the real control plane: fanned out into shards that other instances
// take (the policy's order and total limit still hold, shards are idempotent and a forged one
// removes nothing the policy does not select), and throttled for real by API Priority and
// Fairness (a priority level of one seat that rejects: a 429 storm) without losing order or
// limits. Pods are few here; the sizes are the bench's (`npm run bench scale`).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sweep } from '../../../functions/sweep.js';
import { SWEEP_SHARD_TYPE, type SweepShard } from '../../../shared/cloudevents/index.js';
import { httpMessage, shardEvent } from '../../../shared/cloudevents/index.js';
import { PLAN_TTL_MS, PLANS_NAME } from '../../../shared/cleanup/io/shard-plan.js';
import { kubectl, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { accountOf, functionIdentities, type FunctionIdentities } from '../../harness/function-identity.js';
import { policyDoc } from '../../fixtures/policy.js';
import { broker, pingRequest, resetBrakes, runPod, runtimeFor, send, serve } from './setup.js';
import { pubSubStandIn, type PubSubStandIn } from './pubsub-standin.js';
import { apfNoise, type ApfNoise } from './apf-noise.js';

const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);

function policyFor(namespace: string, total: number) {
  return policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: ['1-255'], namespaces: { include: [namespace] } } }], {
    evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
    top: { maxNoOfPodsToEvictTotal: total },
  });
}

/** `groups` groups of `size` Failed pods, each group a second younger than the one before. */
async function agedGroups(namespace: string, groups: string[], size: number): Promise<void> {
  for (const [g, group] of groups.entries()) {
    if (g > 0) await new Promise((r) => setTimeout(r, 1100)); // creationTimestamp has one-second resolution
    await Promise.all(Array.from({ length: size }, (_, i) => runPod(core(), namespace, `${group}-${i}`, { exitCode: 2 })));
  }
}

const names = async (namespace: string) => (await core().listNamespacedPod({ namespace })).items.map((p) => p.metadata!.name!).sort();
const uidOf = async (namespace: string, name: string) => (await core().readNamespacedPod({ namespace, name })).metadata!.uid!;

let ids: FunctionIdentities;
const idNs = testNamespace('sweep-scale-id');
/** The sweep's own identity, keeping its plans where its Role lets it (the identities' namespace). */
const asSweep = () => ({ KUBECONFIG: ids.kubeconfig('sweep'), KUBE_TIDY_NAMESPACE: idNs.name });
/** The passes whose plans are stored, each with its shards' digests. */
const plans = async (): Promise<Record<string, { shards: Record<string, string> }>> =>
  Object.fromEntries(
    Object.entries((await core().readNamespacedConfigMap({ namespace: idNs.name, name: PLANS_NAME })).data ?? {}).map(([pass, v]) => [pass, JSON.parse(v)]),
  );

beforeAll(async () => {
  const kueueNs = `${idNs.name}-kueue`;
  await core().createNamespace({ body: { metadata: { name: kueueNs } } });
  ids = await functionIdentities(sharedCluster().kubeConfig(), sharedCluster().kubeconfigPath, idNs.name, kueueNs);
});

// The identities' namespace holds one brakes ledger for every test here: each test's limits start from nothing.
beforeEach(() => resetBrakes(idNs.name));

afterAll(async () => {
  await ids?.remove();
  await core()
    .deleteNamespace({ name: `${idNs.name}-kueue` })
    .catch(() => undefined);
});

describe('sweep fanned out into shards across instances', () => {
  const ns = testNamespace('sweep-shards');
  let b: Awaited<ReturnType<typeof broker>>;

  beforeAll(async () => {
    b = await broker();
    await agedGroups(ns.name, ['old', 'mid', 'new'], 4);
    await runPod(core(), ns.name, 'running');
  }, 120_000);
  afterAll(() => b?.close());

  it('the planner acts on the first shard, posts the rest, and other instances finish them: the 8 oldest go, the limit keeps the rest', async () => {
    const env = { ...asSweep(), SWEEP_SHARD_SINK: b.url, SWEEP_SHARD_SIZE: '3', SWEEP_PAGE_SIZE: '2' };
    const planner = serve(sweep, await runtimeFor(policyFor(ns.name, 8), env));
    const res = await send(planner, pingRequest());
    expect(res.status).toBe(200);
    expect(res.body.summary).toMatchObject({
      selected: 3,
      outcomes: { deleted: 3 },
      kept: 4,
      stoppedBy: 'limit-total',
      fannedOut: { shards: 2, pods: 5, notPosted: 0 },
    });
    expect(b.taken.map((m) => m.headers['ce-type'])).toEqual([SWEEP_SHARD_TYPE, SWEEP_SHARD_TYPE]);
    const shards = b.taken.map((m) => JSON.parse(m.body) as SweepShard).sort((x, y) => x.index - y.index);
    expect(shards.map((s) => [s.index, s.of, s.pods.length])).toEqual([
      [1, 3, 3],
      [2, 3, 2],
    ]);
    // In the policy's order: the old group first (shard 0 and the head of shard 1), then mid.
    expect(shards.flatMap((s) => s.pods.map((p) => p.name.split('-')[0]))).toEqual(['old', 'mid', 'mid', 'mid', 'mid']);
    // Its plan is stored before the shards went out: one digest per posted shard.
    expect(Object.keys((await plans())[res.body.summary.pass]!.shards).sort()).toEqual(['1', '2']);

    // Two other instances take one shard each, at the same time.
    const instances = [serve(sweep, await runtimeFor(policyFor(ns.name, 8), env)), serve(sweep, await runtimeFor(policyFor(ns.name, 8), env))];
    const answers = await Promise.all(b.taken.map((m, i) => send(instances[i % 2]!, m)));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map((a) => a.body.outcome)).toEqual(['shard-done', 'shard-done']);
    // What each taker made of its pods, said when the count is off (once seen 4 of 5 under a full run's load).
    const told = JSON.stringify(answers.map((a) => ({ outcomes: a.body.outcomes, results: a.body.results, kept: a.body.kept })));
    expect(
      answers.reduce((n, a) => n + (a.body.outcomes.deleted ?? 0), 0),
      told,
    ).toBe(5);
    expect(await names(ns.name)).toEqual(['new-0', 'new-1', 'new-2', 'new-3', 'running']);

    // Delivered again (a broker retries): nothing left to do, nothing else touched.
    const again = await Promise.all(b.taken.map((m) => send(instances[0]!, m)));
    expect(again.map((a) => [a.status, a.body.outcomes])).toEqual(
      expect.arrayContaining([
        [200, { gone: 3 }],
        [200, { gone: 2 }],
      ]),
    );
    expect(await names(ns.name)).toEqual(['new-0', 'new-1', 'new-2', 'new-3', 'running']);
  });

  it('a shard the planner did not store is refused (422, not retried) before any pod is read: forged, or a planned one with a pod added', async () => {
    const rt = await runtimeFor(policyFor(ns.name, 8), asSweep());
    // new-0 is Failed and the policy selects it: only the pass's limit of 8 kept it.
    const newZero = { namespace: ns.name, name: 'new-0', uid: await uidOf(ns.name, 'new-0') };
    const forged: SweepShard = { pass: 'forged', index: 0, of: 1, pods: [newZero] };
    const res = await send(serve(sweep, rt), httpMessage(shardEvent(forged, 'attacker')));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/no plan of pass forged is stored/);

    const planned = JSON.parse(b.taken[0]!.body) as SweepShard;
    const stretched = await send(serve(sweep, rt), httpMessage(shardEvent({ ...planned, pods: [...planned.pods, newZero] }, 'attacker')));
    expect(stretched.status).toBe(422);
    expect(stretched.body.error).toMatch(/not the shard the planner stored/);
    expect(await names(ns.name)).toEqual(['new-0', 'new-1', 'new-2', 'new-3', 'running']);
  });

  it('a shard whose plan record cannot be read is refused (422) as no plan, and nothing is removed', async () => {
    const planned = JSON.parse(b.taken[0]!.body) as SweepShard;
    const stored = await core().readNamespacedConfigMap({ namespace: idNs.name, name: PLANS_NAME });
    const keep = stored.data![planned.pass]!;
    const mangle = (value: string) =>
      core().patchNamespacedConfigMap({ namespace: idNs.name, name: PLANS_NAME, body: [{ op: 'replace', path: `/data/${planned.pass}`, value }] });
    await mangle('{"at": 17');
    try {
      const before = await names(ns.name);
      const res = await send(serve(sweep, await runtimeFor(policyFor(ns.name, 100), asSweep())), b.taken[0]!);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatch(new RegExp(`the plan of pass ${planned.pass} .* cannot be read \\(not JSON`));
      expect(await names(ns.name)).toEqual(before);
    } finally {
      await mangle(keep);
    }
  });

  it('a shard the broker does not take is work left undone: the planner answers 503 and acts on its own shard', async () => {
    await agedGroups(ns.name, ['more'], 4);
    const env = { ...asSweep(), SWEEP_SHARD_SINK: 'http://127.0.0.1:9/', SWEEP_SHARD_SIZE: '3' };
    const res = await send(serve(sweep, await runtimeFor(policyFor(ns.name, 100), env)), pingRequest());
    expect(res.status).toBe(503);
    expect(res.body.summary).toMatchObject({ selected: 3, outcomes: { deleted: 3 }, fannedOut: { shards: 0, notPosted: 5 } });
    expect(res.body.failures).toEqual({ transient: 5, refused: 0 });
  });

  it('a plan older than an hour is dropped by the next planner that stores one, and its shards are refused from then on', async () => {
    expect(Object.keys(await plans()).length).toBeGreaterThan(0);
    await agedGroups(ns.name, ['late'], 4);
    const rt = await runtimeFor(policyFor(ns.name, 100), { ...asSweep(), SWEEP_SHARD_SINK: b.url, SWEEP_SHARD_SIZE: '3' });
    // This process's clock two hours ahead of the API server's: every earlier plan has expired.
    const clock = rt.now;
    rt.now = () => clock() + 2 * 3600_000;
    const taken = b.taken.length;
    const res = await send(serve(sweep, rt), pingRequest());
    expect(res.body.summary.fannedOut).toMatchObject({ notPosted: 0 });
    expect(Object.keys(await plans())).toEqual([res.body.summary.pass]);
    const old = await send(serve(sweep, await runtimeFor(policyFor(ns.name, 8), asSweep())), b.taken[0]!);
    expect(old.status).toBe(422);
    expect(b.taken.length).toBeGreaterThan(taken);
  });
});

describe('a shard replayed after its plan aged past the hour, with no later planner to drop the record', () => {
  const ns = testNamespace('sweep-aged-plan');
  let b: Awaited<ReturnType<typeof broker>>;

  beforeAll(async () => {
    b = await broker();
    await agedGroups(ns.name, ['old', 'mid'], 4);
  }, 120_000);
  afterAll(() => b?.close());

  it("is refused (422) by the taker from the record's age alone, and no pod is removed; the same shard within the hour is taken", async () => {
    const env = { ...asSweep(), SWEEP_SHARD_SINK: b.url, SWEEP_SHARD_SIZE: '3' };
    const res = await send(serve(sweep, await runtimeFor(policyFor(ns.name, 100), env)), pingRequest());
    expect(res.status).toBe(200);
    expect(res.body.summary).toMatchObject({ outcomes: { deleted: 3 }, fannedOut: { shards: 2, pods: 5, notPosted: 0 } });
    const pass = res.body.summary.pass as string;
    expect(Object.keys((await plans())[pass]!.shards).sort()).toEqual(['1', '2']);
    const left = await names(ns.name);
    expect(left).toHaveLength(5);

    // The taker's clock an hour and a minute past the planner's: nothing else planned since, so the record is still stored.
    const late = await runtimeFor(policyFor(ns.name, 100), asSweep());
    const clock = late.now;
    late.now = () => clock() + PLAN_TTL_MS + 60_000;
    const taker = serve(sweep, late);
    const replayed = await Promise.all(b.taken.map((m) => send(taker, m)));
    expect(replayed.map((a) => a.status)).toEqual([422, 422]);
    expect(replayed[0]!.body.error).toMatch(/older than an hour/);
    expect(Object.keys(await plans())).toContain(pass);
    expect(await names(ns.name)).toEqual(left);

    // The same shards, in time: taken.
    const onTime = serve(sweep, await runtimeFor(policyFor(ns.name, 100), asSweep()));
    const inTime = await Promise.all(b.taken.map((m) => send(onTime, m)));
    expect(inTime.map((a) => a.status)).toEqual([200, 200]);
    expect(await names(ns.name)).toEqual([]);
  });
});

describe('sweep fanned out through Pub/Sub and Eventarc, as on GCP (a test stand-in plays both: pubsub-standin.ts)', () => {
  const ns = testNamespace('sweep-pubsub');
  const topic = 'projects/kube-tidy-test/topics/kube-tidy-sweep-shards';
  let ps: PubSubStandIn;

  beforeAll(async () => {
    ps = await pubSubStandIn(topic);
    await agedGroups(ns.name, ['old', 'mid', 'new'], 4);
  }, 120_000);
  afterAll(() => ps?.server.close());

  it('the planner publishes the shards it does not act on; instances take them from Eventarc, again harmlessly on redelivery', async () => {
    const env = { ...asSweep(), SWEEP_SHARD_TOPIC: topic, PUBSUB_EMULATOR_HOST: ps.host, SWEEP_SHARD_SIZE: '3' };
    const res = await send(serve(sweep, await runtimeFor(policyFor(ns.name, 8), env)), pingRequest());
    expect(res.status).toBe(200);
    expect(res.body.summary).toMatchObject({
      selected: 3,
      outcomes: { deleted: 3 },
      stoppedBy: 'limit-total',
      fannedOut: { shards: 2, pods: 5, notPosted: 0 },
    });
    expect(ps.published.map((m) => m.attributes['ce-type'])).toEqual([SWEEP_SHARD_TYPE, SWEEP_SHARD_TYPE]);

    const instances = [serve(sweep, await runtimeFor(policyFor(ns.name, 8), env)), serve(sweep, await runtimeFor(policyFor(ns.name, 8), env))];
    const answers = await Promise.all(ps.published.map((_, i) => send(instances[i % 2]!, ps.delivery(i))));
    expect(answers.map((a) => [a.status, a.body.outcome])).toEqual([
      [200, 'shard-done'],
      [200, 'shard-done'],
    ]);
    // What each taker made of its pods, said when the count is off (once seen 4 of 5 under a full run's load).
    const told = JSON.stringify(answers.map((a) => ({ outcomes: a.body.outcomes, results: a.body.results, kept: a.body.kept })));
    expect(
      answers.reduce((n, a) => n + (a.body.outcomes.deleted ?? 0), 0),
      told,
    ).toBe(5);
    expect(await names(ns.name)).toEqual(['new-0', 'new-1', 'new-2', 'new-3']);

    const again = await Promise.all(ps.published.map((_, i) => send(instances[1]!, ps.delivery(i))));
    expect(again.map((a) => a.body.outcomes.deleted ?? 0)).toEqual([0, 0]);
    expect(await names(ns.name)).toEqual(['new-0', 'new-1', 'new-2', 'new-3']);
  });

  it('a topic Pub/Sub refuses is work left undone: 503, and the refusal in the summary', async () => {
    await agedGroups(ns.name, ['more'], 4);
    const env = { ...asSweep(), SWEEP_SHARD_TOPIC: 'projects/kube-tidy-test/topics/not-there', PUBSUB_EMULATOR_HOST: ps.host, SWEEP_SHARD_SIZE: '3' };
    const res = await send(serve(sweep, await runtimeFor(policyFor(ns.name, 100), env)), pingRequest());
    expect(res.status).toBe(503);
    expect(res.body.summary).toMatchObject({
      selected: 3,
      outcomes: { deleted: 3 },
      fannedOut: { shards: 0, notPosted: 5, error: expect.stringMatching(/HTTP 404 .*NOT_FOUND/) },
    });
  });
});

describe('sweep under a 429 storm from API Priority and Fairness', () => {
  const ns = testNamespace('sweep-apf');
  const level = () => `kube-tidy-test-${ns.name}`;
  let noise: ApfNoise | undefined;

  beforeAll(async () => {
    // One seat of the server's concurrency for the sweep's ServiceAccount, and excess requests
    // rejected rather than queued: the harshest a cluster's APF configuration can be.
    const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-apf-'));
    const file = join(dir, 'apf.yaml');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
            kind: 'PriorityLevelConfiguration',
            metadata: { name: level() },
            spec: {
              type: 'Limited',
              limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' } },
            },
          },
          {
            apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
            kind: 'FlowSchema',
            metadata: { name: level() },
            spec: {
              priorityLevelConfiguration: { name: level() },
              matchingPrecedence: 100,
              distinguisherMethod: { type: 'ByUser' },
              rules: [
                {
                  subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: idNs.name, name: accountOf('sweep') } }],
                  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
                  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
                },
              ],
            },
          },
        ],
      }),
    );
    await kubectl(sharedCluster(), ['apply', '-f', file]);
    await agedGroups(ns.name, ['old', 'mid', 'new'], 10);
    noise = await apfNoise(ids.kubeconfig('sweep'), `/api/v1/namespaces/${ns.name}/pods?limit=1`);
    // Until the API server's APF controller has the new schema, nothing is rejected. Asked by
    // the level each answer names, not by a burst meeting a 429: every rejection raises the
    // Retry-After the level gives later (APF's dropped-requests tracker doubles it, up to 32 s,
    // while rejections go on), and a level left at 8 s or more made this test fail both ways.
    const uid = (await kubectl(sharedCluster(), ['get', 'prioritylevelconfiguration', level(), '-o', 'jsonpath={.metadata.uid}'])).trim();
    await waitFor('APF to put the sweep account in its own level', async () => (await noise!.levelUid()) === uid);
  }, 180_000);

  afterAll(async () => {
    noise?.close();
    await kubectl(sharedCluster(), ['delete', 'flowschema,prioritylevelconfiguration', level(), '--ignore-not-found']);
  });

  it('backs off and retries, and still removes exactly the 20 oldest of 30 under a total limit of 20', async () => {
    const rt = await runtimeFor(policyFor(ns.name, 20), { ...asSweep(), SWEEP_CONCURRENCY: '32', SWEEP_PAGE_SIZE: '5' });
    // The sweep's own 20 writes alone did not always overlap enough to meet a 429 (a busy CI
    // machine sends them more slowly): another client of the same account keeps the level's
    // seats busy while it runs, so the storm is certain, not likely. The noise stops once the
    // sweep has been throttled: kept up for the whole sweep, it could outlast the sweep's 8
    // retries of one request, which is a different test (a storm that never ends answers 503,
    // "retry, it is safe").
    await rt.kubeReady();
    const throttle = rt.clients.throttle;
    const sentBefore = throttle.sent;
    let done = false;
    const storm = noise!.storm(8, () => done || throttle.throttled > 0);
    const res = await Promise.resolve(send(serve(sweep, rt), pingRequest())).finally(() => (done = true));
    const sent = throttle.sent - sentBefore;
    await storm;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.summary).toMatchObject({ selected: 20, outcomes: { deleted: 20 }, kept: 10, stoppedBy: 'limit-total' });
    expect(res.body.summary.throttled).toBeGreaterThan(0);
    // Nothing but the sweep used this runtime's clients: its `requests` is every request they
    // sent, each one APF rejected and that was sent again included (so more than were answered).
    expect(res.body.summary.requests).toBe(sent);
    expect(res.body.failures).toEqual({ transient: 0, refused: 0 });
    expect(await names(ns.name)).toEqual(Array.from({ length: 10 }, (_, i) => `new-${i}`).sort());
  });
});

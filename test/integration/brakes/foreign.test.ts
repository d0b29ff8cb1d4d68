// A ledger rewritten by someone else as a valid ledger (issue 44). The outside campaign's case:
// under a cap of 5 Jobs (a rate with kinds [Job]), a PUT of a valid but empty ledger mid-storm
// let 5 more Jobs go, 10 deleted, and nothing said. Garbage, emptied and deleted ledgers held
// (unreadable.test.ts); this one read as a ledger. Now kube-tidy writes the ledger under its own
// field manager and trusts only that: a value another manager wrote last is taken as a blind
// rebuild by whichever instance reads it (a fresh one too), the cap holds, and the LedgerRebuilt
// Event names who wrote it. The foreign writer here is the harness's client with no field
// manager, which the API server names after its user agent (`node-fetch`), as a script's would be.
// The same for pods under maxNoOfPodsToEvictTotal.
import { BatchV1Api, EventsV1Api, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectUpdated } from '../../../functions/object-updated.js';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { BRAKES_NAME } from '../../../shared/brakes/io/store.js';
import { httpMessage, toApiServerSourceEvent, type KubeObject } from '../../../shared/cloudevents/index.js';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { policyDoc } from '../../fixtures/policy.js';
import { finishedJob, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { knativeRequest, runtimeFor, send, serve } from '../functions/setup.js';
import { core, failedPolicy, limited, makePods, podNames, range, storedLedger, windowWithRoom } from './helpers.js';

const ns = testNamespace('brakes-foreign');
const homes = { jobs: testNamespace('brakes-foreign-jobs'), pods: testNamespace('brakes-foreign-pods'), stripped: testNamespace('brakes-foreign-strip') };
const batch = () => sharedCluster().kubeConfig().makeApiClient(BatchV1Api);
const CAP = 5;
const STORM = 12;
const EMPTY = '{"counts":{},"holds":{},"trips":{}}';
const runtimes: Runtime[] = [];
let jobs: Map<string, V1Job>;
let pods: Map<string, V1Pod>;

/**
 * Another writer's PUT of a valid, empty ledger at the resourceVersion it read (no field manager:
 * the client's user agent names it); `strip`: with `managedFields: [{}]`, which has the API server
 * drop every managedFields entry, so no writer is named at all.
 */
async function foreignPut(home: string, strip = false): Promise<void> {
  const cm = await core().readNamespacedConfigMap({ namespace: home, name: BRAKES_NAME });
  const metadata = { name: BRAKES_NAME, resourceVersion: cm.metadata!.resourceVersion, ...(strip ? { managedFields: [{}] } : {}) };
  await core().replaceNamespacedConfigMap({ namespace: home, name: BRAKES_NAME, body: { metadata, data: { 'ledger.json': EMPTY } } });
}

/** Who owns the ledger's value now, as the API server records it. */
const owners = async (home: string) =>
  ((await core().readNamespacedConfigMap({ namespace: home, name: BRAKES_NAME })).metadata?.managedFields ?? [])
    .filter((e) => 'f:ledger.json' in ((e.fieldsV1 as Record<string, Record<string, unknown>>)?.['f:data'] ?? {}))
    .map((e) => e.manager);

const rebuiltEvents = async (home: string) =>
  (await sharedCluster().kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: home })).items.filter((e) => e.reason === 'LedgerRebuilt');
const saidRebuilt = (home: string) =>
  waitFor('the LedgerRebuilt Event', async () => ((await rebuiltEvents(home)).length > 0 ? rebuiltEvents(home) : undefined), {
    timeoutMs: 10_000,
    intervalMs: 200,
  });

/** The ApiServerSource's update event for a Job (Resource mode), binary. */
const jobEvent = (job: V1Job) =>
  httpMessage(
    toApiServerSourceEvent(
      'update',
      JSON.parse(JSON.stringify({ ...job, apiVersion: 'batch/v1', kind: 'Job' })) as KubeObject,
      sharedCluster().kubeConfig().getCurrentCluster()!.server,
    ),
    'binary',
  );
const jobsLeft = async () => (await batch().listNamespacedJob({ namespace: ns.name })).items.filter((j) => !j.metadata?.deletionTimestamp).length;

beforeAll(async () => {
  const [made, finished] = await Promise.all([
    makePods(ns.name, [...range('pod', STORM), ...range('strip', STORM)], { exitCode: 137 }),
    limited(
      4,
      range('job', STORM).map((name) => () => finishedJob(batch(), ns.name, name)),
    ),
  ]);
  pods = new Map(made.map((p) => [p.metadata!.name!, p]));
  jobs = new Map(finished.map((j) => [j.metadata!.name!, j]));
}, 240_000);
afterAll(() => {
  for (const rt of runtimes) rt.brakes().close();
});

/** Half the storm through one instance, the foreign PUT, the rest alternately through it and a fresh instance. */
async function storm(
  home: string,
  policy: unknown,
  served: (rt: Runtime) => ReturnType<typeof serve>,
  event: (name: string) => ReturnType<typeof jobEvent>,
  names: string[],
  strip = false,
) {
  const instance = async () => {
    const rt = await runtimeFor(policy, { BRAKES_NAMESPACE: home, DRY_RUN: 'false' });
    runtimes.push(rt);
    return { rt, agent: served(rt) };
  };
  const a = await instance();
  const before = [];
  for (const name of names.slice(0, CAP)) before.push((await send(a.agent, event(name))).body.outcome);
  await a.rt.brakes().settle();
  // kube-tidy's own writes are its own: nothing said so far, and its field manager owns the value.
  expect(await owners(home)).toEqual(['kube-tidy']);
  expect(await rebuiltEvents(home)).toEqual([]);
  await foreignPut(home, strip);
  expect(await owners(home)).toEqual(strip ? [] : ['node-fetch']);
  const b = await instance();
  const after = [];
  for (const [i, name] of names.slice(CAP).entries()) after.push((await send(i % 2 ? a.agent : b.agent, event(name))).body);
  return { before, after };
}

describe('a ledger another writer rewrote as a valid, empty ledger mid-storm', () => {
  it(`Jobs under a rate of ${CAP} (kinds [Job]): the cap holds, and the rebuild names the writer`, async () => {
    const { windowMs } = windowWithRoom(180_000);
    const home = homes.jobs.name;
    const rule = { name: 'finished-jobs', kind: 'Job', minAge: '0s', mode: 'delete', namespaces: { include: [ns.name] } };
    const policy = policyDoc([{ name: 'RemoveFailedPods', args: { namespaces: { include: ['nothing-here'] } } }], {
      top: { kubeTidy: { brakes: { rates: [{ max: CAP, per: `${windowMs / 60_000}m`, kinds: ['Job'] }] }, objects: [rule] } },
    });
    const { before, after } = await storm(
      home,
      policy,
      (rt) => serve(objectUpdated, rt),
      (name) => jobEvent(jobs.get(name)!),
      range('job', STORM),
    );
    expect(before).toEqual(Array(CAP).fill('deleted'));
    expect(after.map((x) => x.outcome)).toEqual(Array(STORM - CAP).fill('deferred'));
    expect(after[0].why).toMatch(/the brakes' ledger was rewritten by node-fetch \(Update at [0-9T:-]+Z\), not by kube-tidy and rebuilt at/);
    expect(await jobsLeft()).toBe(STORM - CAP);
    const said = await saidRebuilt(home);
    expect(said).toHaveLength(1);
    expect(said[0]!.type).toBe('Warning');
    expect(said[0]!.note).toMatch(/kube-tidy-brakes was rewritten by node-fetch \(Update at [0-9T:-]+Z\), not by kube-tidy; rebuilt at/);
    // The rebuild is kube-tidy's own write again, the foreign text kept for the person who looks.
    expect((await storedLedger(home)).blind).toMatchObject({ why: expect.stringMatching(/^rewritten by node-fetch/), excerpt: EMPTY });
    expect(await owners(home)).toEqual(['kube-tidy']);
  }, 180_000);

  it(`pods under maxNoOfPodsToEvictTotal ${CAP}: the same`, async () => {
    const { top } = windowWithRoom(180_000);
    const home = homes.pods.name;
    const policy = failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: CAP, ...top });
    const { before, after } = await storm(
      home,
      policy,
      (rt) => serve(podTerminated, rt),
      (name) => knativeRequest('binary', 'update', pods.get(name)!),
      range('pod', STORM),
    );
    expect(before).toEqual(Array(CAP).fill('deleted'));
    expect(after.map((x) => x.outcome)).toEqual(Array(STORM - CAP).fill('deferred'));
    expect(after[0].deferred.why).toMatch(/the brakes' ledger was rewritten by node-fetch .* and rebuilt at/);
    expect((await podNames(ns.name)).filter((n) => n.startsWith('pod-'))).toHaveLength(STORM - CAP);
    expect((await saidRebuilt(home))[0]!.note).toMatch(/was rewritten by node-fetch \(Update at/);
  }, 180_000);

  it(`pods under maxNoOfPodsToEvictTotal ${CAP}, the PUT stripping managedFields: the same, no writer to name`, async () => {
    const { top } = windowWithRoom(180_000);
    const home = homes.stripped.name;
    const policy = failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: CAP, ...top });
    const served = (rt: Runtime) => serve(podTerminated, rt);
    const { before, after } = await storm(home, policy, served, (name) => knativeRequest('binary', 'update', pods.get(name)!), range('strip', STORM), true);
    expect(before).toEqual(Array(CAP).fill('deleted'));
    expect(after.map((x) => x.outcome)).toEqual(Array(STORM - CAP).fill('deferred'));
    expect(after[0].deferred.why).toMatch(/rewritten by \(unknown: managedFields stripped\)/);
    expect((await podNames(ns.name)).filter((n) => n.startsWith('strip-'))).toHaveLength(STORM - CAP);
    // Rebuilt once: the API server records no manager on later updates of an object without
    // managedFields, so the rebuild names kube-tidy's key itself (written-by.ts ownedAgain);
    // without that every read after it would find the ledger foreign and rebuild it again.
    expect(await rebuiltEvents(home)).toHaveLength(1);
    expect(await owners(home)).toEqual(['kube-tidy']);
  }, 180_000);
});

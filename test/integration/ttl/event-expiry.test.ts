// TTL on any kind at expiry, by event, on the real control plane (issue 47 item 3): no sweep runs
// in this file. A Deployment with kube-janitor's `janitor/ttl` and a Namespace with Kyverno's
// `cleanup.kyverno.io/ttl` are watched as the standalone program watches them (the bridge's
// watch of the kinds the ttl rules name, found by discovery, into objectUpdated in process), and
// go at their expiry: present up to it, gone within BOUND_MS after it. A forged event (the TTL in
// the event's copy, not stored) changes nothing; an instance that listed an object and stopped is
// covered by another instance's tick at the object's expiry; DRY_RUN writes nothing, not even a
// due entry. Each TTL counts from the object's creation (whole seconds, as stored).
import { AppsV1Api, CoreV1Api, type V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectUpdated, type ObjectUpdatedParts } from '../../../functions/object-updated.js';
import { httpMessage, toApiServerSourceEvent, type KubeObject } from '../../../shared/cloudevents/index.js';
import { startBridge, type Bridge } from '../../../shared/hosts/bridge/bridge.js';
import { inProcessDispatch } from '../../../shared/hosts/standalone/dispatch.js';
import { routesOf } from '../../../shared/hosts/standalone/routing.js';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import type { Served } from '../../../shared/hosts/server/setup.js';
import { policyDoc } from '../../fixtures/policy.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { serveParts } from '../due/setup.js';
import { pingRequest, runtimeFor, send } from '../functions/setup.js';
import { previewsRule } from '../../fixtures/ttl-previews.js';

const ns = testNamespace('ttl-event');
const kc = () => sharedCluster().kubeConfig();
const core = () => kc().makeApiClient(CoreV1Api);
const apps = () => kc().makeApiClient(AppsV1Api);

const TTL_S = 15;
/**
 * How long after its expiry an object may take to start going: a timer armed to the
 * millisecond, then a GET, the brakes' ledger and the delete (tens of ms here), and this test's
 * 200 ms polling, on a machine shared with other tests. 10 s holds under that load; a removal
 * that waited for a poll (a sweep's 15 min, Kyverno's 1 min) is far outside it.
 */
const BOUND_MS = 10_000;
/** This test's clock against the API server's (the same machine): an allowance, not a tolerance of early removals. */
const SKEW_MS = 250;

/** Only this file's objects: the rule's selector, and the watch's. */
const mark = () => ({ 'kube-tidy.dev/ttl-event': ns.name });
const made: string[] = [];
const nsName = (what: string) => `${ns.name}-${what}`;

const policy = () =>
  policyDoc([{ name: 'RemoveFailedPods', args: { namespaces: { include: ['nothing-here'] } } }], {
    top: {
      kubeTidy: {
        ttl: [previewsRule({ matchLabels: mark() })],
      },
    },
  });

const env = (more: Record<string, string> = {}) => ({ DRY_RUN: 'false', DUE_NAMESPACE: `${ns.name}-due`, ...more });

async function deployment(name: string, annotations: Record<string, string>): Promise<V1Deployment> {
  const labels = { app: name };
  return apps().createNamespacedDeployment({
    namespace: ns.name,
    body: {
      metadata: { name, labels: mark(), annotations },
      spec: {
        replicas: 0,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
      },
    },
  });
}

async function namespaceWith(what: string, labels: Record<string, string>) {
  const name = nsName(what);
  made.push(name);
  return core().createNamespace({ body: { metadata: { name, labels: { ...mark(), ...labels } } } });
}

const expiryOf = (o: { metadata?: { creationTimestamp?: Date | string } }) => new Date(o.metadata!.creationTimestamp!).getTime() + TTL_S * 1000;

/** The object as stored while it is not going (no deletionTimestamp); undefined once it is. */
const standing = {
  deployment: (name: string) =>
    apps()
      .readNamespacedDeployment({ namespace: ns.name, name })
      .then((d) => (d.metadata?.deletionTimestamp ? undefined : d))
      .catch(() => undefined),
  namespace: (name: string) =>
    core()
      .readNamespace({ name })
      .then((n) => (n.metadata?.deletionTimestamp ? undefined : n))
      .catch(() => undefined),
};

/**
 * Reads the object until its expiry, asserting it stands on every read answered before it (a
 * read answered later under load proves nothing and is not judged); then the time it was first
 * seen going. Never a tight bound: early is a failure, late is judged against BOUND_MS.
 */
async function goneAfterExpiry(what: string, read: () => Promise<unknown>, expiry: number): Promise<number> {
  let judged = 0;
  for (;;) {
    const got = await read();
    const answered = Date.now();
    if (answered >= expiry - SKEW_MS) break;
    expect(got, `${what} went before its expiry (${new Date(expiry).toISOString()})`).toBeDefined();
    judged++;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(judged, `${what}: read at least once before its expiry`).toBeGreaterThan(0);
  return waitFor(`${what} going`, async () => ((await read()) ? undefined : Date.now()), { timeoutMs: 60_000 + TTL_S * 1000, intervalMs: 200 });
}

/** The uids in the Deployment ttl kind's due list (four shards), as stored. */
async function listedDeployments(namespace = `${ns.name}-due`): Promise<string[]> {
  const uids: string[] = [];
  for (let s = 0; s < 4; s++) {
    const cm = await core()
      .readNamespacedConfigMap({ namespace, name: `kube-tidy-objects-due-ttl-deployment.apps-${s}` })
      .catch(() => undefined);
    uids.push(...Object.keys(cm?.data ?? {}));
  }
  return uids;
}

/** The ApiServerSource's event for a stored (or forged) object, Resource mode. */
const eventOf = (verb: 'add' | 'update', o: object, apiVersion: string, kind: string) =>
  httpMessage(toApiServerSourceEvent(verb, JSON.parse(JSON.stringify({ ...o, apiVersion, kind })) as KubeObject, kc().getCurrentCluster()!.server), 'binary');

afterAll(async () => {
  await Promise.all(
    made.map((name) =>
      core()
        .deleteNamespace({ name })
        .catch(() => undefined),
    ),
  );
});

describe('objectUpdated: a ttl rule acts at expiry, by event, without a sweep', () => {
  let rt: Runtime;
  let parts: ObjectUpdatedParts;
  let bridges: Bridge[] = [];
  beforeAll(async () => {
    rt = await runtimeFor(policy(), env());
    parts = await objectUpdated.setup(rt);
    const served = [{ spec: objectUpdated, parts } as unknown as Served];
    const dispatch = inProcessDispatch({ served, routes: routesOf(served), rt, log: rt.log, holds: () => true });
    // As the standalone program: the kinds the ttl rules name, found by discovery, each watched into the dispatch.
    const kinds = await objectUpdated.accepts.watches!(parts);
    expect(kinds.map((k) => [k.kind, k.apiVersion, k.resource]).sort()).toEqual([
      ['Deployment', 'apps/v1', 'deployments'],
      ['Namespace', 'v1', 'namespaces'],
    ]);
    for (const k of kinds)
      bridges.push(
        await startBridge({
          kubeConfig: kc(),
          sink: { name: 'objectUpdated in process', send: dispatch.event },
          kinds: [k],
          labelSelector: `kube-tidy.dev/ttl-event=${ns.name}`,
          log: rt.log,
          statsIntervalMs: 0,
        }),
      );
  });
  afterAll(async () => {
    await Promise.all(bridges.map((b) => b.stop({ deadlineMs: 0 })));
    bridges = [];
    parts.stop();
  });

  it("a Deployment's janitor/ttl and a Namespace's cleanup.kyverno.io/ttl: present until their expiry, gone within the bound after it", async () => {
    const d = await deployment('preview-app', { 'janitor/ttl': `${TTL_S}s` });
    const n = await namespaceWith('preview', { 'cleanup.kyverno.io/ttl': `${TTL_S}s` });
    const [dAt, nAt] = await Promise.all([
      goneAfterExpiry('the Deployment', () => standing.deployment('preview-app'), expiryOf(d)),
      goneAfterExpiry('the Namespace', () => standing.namespace(n.metadata!.name!), expiryOf(n)),
    ]);
    expect(dAt - expiryOf(d), 'the Deployment went within the bound after its expiry').toBeLessThanOrEqual(BOUND_MS);
    expect(nAt - expiryOf(n), 'the Namespace went within the bound after its expiry').toBeLessThanOrEqual(BOUND_MS);
    expect(parts.due.timers.size, 'their timers are done').toBe(0);
  }, 120_000);
});

describe("objectUpdated: a ttl kind's event is only a hint; another instance covers an expiry; DRY_RUN writes nothing", () => {
  it('a forged event (the TTL in its copy, not stored) changes nothing: no decision, no timer, no entry', async () => {
    const rt = await runtimeFor(policy(), env());
    const parts = await objectUpdated.setup(rt);
    try {
      const d = await deployment('no-ttl', {});
      const forged = { ...d, metadata: { ...d.metadata, annotations: { 'janitor/ttl': '1s' }, creationTimestamp: '2020-01-01T00:00:00Z' } };
      const res = await send(serveParts(objectUpdated, parts, rt), eventOf('update', forged, 'apps/v1', 'Deployment'));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ outcome: 'nothing-to-do', object: `Deployment ${ns.name}/no-ttl` });
      expect(res.body.scheduled).toBeUndefined();
      expect(parts.due.timers.size).toBe(0);
      expect(await standing.deployment('no-ttl')).toBeDefined();
      expect(await listedDeployments()).not.toContain(d.metadata!.uid);
    } finally {
      parts.stop();
    }
  }, 60_000);

  it("an instance that listed a Deployment and stopped is covered by another instance's tick, at its expiry", async () => {
    const firstRt = await runtimeFor(policy(), env());
    const first = await objectUpdated.setup(firstRt);
    const d = await deployment('orphaned', { 'janitor/ttl': `${TTL_S}s` });
    const res = await send(serveParts(objectUpdated, first, firstRt), eventOf('add', d, 'apps/v1', 'Deployment'));
    expect(res.body).toMatchObject({ outcome: 'nothing-to-do', scheduled: new Date(expiryOf(d)).toISOString() });
    first.stop();
    expect(await listedDeployments(), 'listed, so another instance can act if this one dies').toContain(d.metadata!.uid);
    const secondRt = await runtimeFor(policy(), env());
    const second = await objectUpdated.setup(secondRt);
    try {
      // Sent now: the tick holds its request until the Deployment's expiry and acts then.
      const ticking = send(serveParts(objectUpdated, second, secondRt), pingRequest('object-updated')).then((r) => r);
      const at = await goneAfterExpiry('the orphaned Deployment', () => standing.deployment('orphaned'), expiryOf(d));
      const tick = await ticking;
      expect(tick.status, JSON.stringify(tick.body)).toBe(200);
      expect(tick.body).toMatchObject({ outcome: 'ticked', outcomes: { deleted: 1 } });
      expect(at - expiryOf(d)).toBeLessThanOrEqual(BOUND_MS);
      expect(await listedDeployments()).not.toContain(d.metadata!.uid);
    } finally {
      second.stop();
    }
  }, 120_000);

  it('DRY_RUN: an expired Deployment is planned, not deleted, and a waiting one gets no due entry', async () => {
    const rt = await runtimeFor(policy(), env({ DRY_RUN: 'true', DUE_NAMESPACE: `${ns.name}-dry` }));
    const parts = await objectUpdated.setup(rt);
    const agent = serveParts(objectUpdated, parts, rt);
    try {
      const expired = await deployment('dry-expired', { 'janitor/ttl': '1s' });
      await waitFor('past its 1 s ttl', async () => (Date.now() > new Date(expired.metadata!.creationTimestamp!).getTime() + 1_500 ? true : undefined), {
        intervalMs: 100,
      });
      const res = await send(agent, eventOf('update', expired, 'apps/v1', 'Deployment'));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ outcome: 'deleted', dryRun: true });
      expect(await standing.deployment('dry-expired')).toBeDefined();
      const waiting = await deployment('dry-waiting', { 'janitor/ttl': '1h' });
      await send(agent, eventOf('add', waiting, 'apps/v1', 'Deployment'));
      expect(await listedDeployments(`${ns.name}-dry`), 'no due entry written under DRY_RUN').toEqual([]);
    } finally {
      parts.stop();
    }
  }, 60_000);
});

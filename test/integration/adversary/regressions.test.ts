// Issue 13's table, one regression test per row: what a forged, stale or malformed request
// did to the real functions (production entry, own ServiceAccount, real API server), and what
// must hold instead. The audit log says what each function SENT, refused or not.
import { PatchStrategy, PolicyV1Api, RbacAuthorizationV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWrite, sharedCluster, testNamespace, waitFor, type AuditWrite } from '../../harness/index.js';
import { writeKubeconfig } from '../../harness/credentials.js';
import { freePorts } from '../../harness/ports.js';
import { adversary, release, TARGETS, wrongWrites, type Adversary, type Target } from './env.js';
import { asEvent, claimedFailed, failedPod } from './events.js';
import { flakyApiServer } from './flaky-apiserver.js';
import { apiServerSourceEvent, gzipBomb, json, pingTick, post, type Wire } from './wire.js';
import { mint, TRUST_MODES, trustedEnv } from '../functions/trust-modes.js';

const ns = testNamespace('adv-reg');
let env: Adversary;
const nothing = () => false;
const HOLD = 'test.kube-tidy.dev/hold';
const url = (t: Target) => env.fn[t]!.url;

beforeAll(async () => {
  env = await adversary(ns.name, ['podTerminated', 'sweep', 'invoke']);
}, 180_000);
afterAll(async () => env?.stop());

/** Sends `w` to `target` and answers the reply with what the functions wrote meanwhile. */
async function attempt(target: Target, w: Wire): Promise<{ status: number; body: string; json?: Record<string, unknown>; writes: AuditWrite[] }> {
  const mark = env.mark();
  const answer = await post(url(target), w);
  return { ...answer, writes: await env.writesSince(mark) };
}

function expectNoWrongWrites(writes: AuditWrite[]): void {
  const wrong = wrongWrites(writes, nothing);
  expect(wrong, wrong.join('\n')).toEqual([]);
}

const writesTo = (writes: AuditWrite[], pod: string) => writes.filter((w) => w.resource === 'pods' && w.name === pod && !w.dryRun);

/** A pod write the API server refused 409 for its uid and resourceVersion preconditions: nothing changed. */
const refusedByPreconditions = (w: AuditWrite) => w.resource === 'pods' && w.code === 409 && !!w.preconditions?.uid && !!w.preconditions.resourceVersion;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('names are names: refused with 400 before any request is sent', () => {
  const BAD: [label: string, value: string][] = [
    ['..', '..'],
    ['.', '.'],
    ['a slash', 'a/b'],
    ['%2F', 'a%2Fb'],
    ['a NUL byte', 'a\u0000b'],
    ['over-long (254 characters)', 'a'.repeat(254)],
    ['uppercase', 'Failed-Pod'],
  ];
  for (const [label, value] of BAD) {
    it(`a Failed-pod event whose metadata.name is ${label} is refused with 400 and nothing is sent`, async () => {
      const r = await attempt('podTerminated', apiServerSourceEvent(failedPod(env.ns, value)));
      expect(r.writes.map(describeWrite), r.writes.map(describeWrite).join('\n')).toEqual([]);
      expect(r.status, r.body).toBe(400);
    });
    it(`a Failed-pod event whose metadata.namespace is ${label} is refused with 400 and nothing is sent`, async () => {
      const r = await attempt('podTerminated', apiServerSourceEvent(failedPod(value, 'victim')));
      expect(r.writes.map(describeWrite), r.writes.map(describeWrite).join('\n')).toEqual([]);
      expect(r.status, r.body).toBe(400);
    });
  }
});

// In both of podTerminated's ways to take an event (functions/trust-modes.ts): read first, and
// with sender authentication on, the named source's Resource-mode pod as the read. In the
// second, stale, replayed and reordered events come from the named source itself (the worst
// case: it passes on what a watch gap or a broker's retry gives it); an event forged at the
// pod's current uid and resourceVersion comes from an authenticated sender the setting does not
// name (the named source's own forgery is what naming it trusts: pod-terminated-trusted.test.ts).
// A pod write refused 409 by its preconditions changed nothing: in the trusted mode that is how
// a stale copy's write ends, and it is not a wrong write; every pod write still carries both.
describe.each(TRUST_MODES)('the stored pod decides, not the event (%s)', (mode) => {
  const m = mode === 'trusted' ? 't' : 'r';
  let fn: { url: string; stop(): Promise<void> };
  const as: Record<'source' | 'forger', Record<string, string>> = { source: {}, forger: {} };
  beforeAll(async () => {
    // An Event per removal (EVENT_SERIES_WINDOW_SECONDS=0): the namespace's bare pods would
    // otherwise share one series, and a replay's Events are counted here one by one.
    const oneEach = { EVENT_SERIES_WINDOW_SECONDS: '0' };
    if (mode === 'read-then-write') {
      fn = await env.spawn('podTerminated', oneEach);
      return;
    }
    fn = await env.spawn('podTerminated', { ...trustedEnv(env.ns), ...oneEach });
    as.source = { authorization: `Bearer ${await mint(env.ns, 'source')}` };
    as.forger = { authorization: `Bearer ${await mint(env.ns, 'intruder')}` };
  }, 180_000);
  afterAll(async () => fn?.stop());

  /** `w` sent to podTerminated as `who`, with what the functions wrote meanwhile (in the trusted mode, less the pod writes 409 refused). */
  async function sent(who: 'source' | 'forger', w: Wire) {
    const mark = env.mark();
    const answer = await post(fn.url, { ...w, headers: { ...w.headers, ...as[who] } });
    const all = await env.writesSince(mark);
    return { ...answer, all, writes: all.filter((x) => !(mode === 'trusted' && refusedByPreconditions(x))) };
  }

  it('an event claiming a Running pod failed, with its current uid and resourceVersion (forged), deletes nothing', async () => {
    const pod = await env.staticPod(`forged-${m}`, { phase: 'Running', labels: { tidy: 'yes' } });
    const r = await sent('forger', apiServerSourceEvent(claimedFailed(pod)));
    expectNoWrongWrites(r.writes);
    expect(r.status, r.body).toBeLessThan(500);
    await env.core.readNamespacedPod({ namespace: env.ns, name: `forged-${m}` });
  });

  it('an event claiming a Running pod failed, with a stale resourceVersion, deletes nothing', async () => {
    const name = `stale-${m}`;
    const created = await env.core.createNamespacedPod({
      namespace: env.ns,
      body: {
        metadata: { name, labels: { tidy: 'yes' } },
        spec: { schedulerName: 'kube-tidy-adversary-nobody', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
      },
    });
    await env.core.deleteNamespacedPod({ namespace: env.ns, name, gracePeriodSeconds: 0 });
    await waitFor('stale gone', async () => !(await env.core.readNamespacedPod({ namespace: env.ns, name }).catch(() => undefined)));
    // Same name again, Running now: the event is the old pod's, uid and resourceVersion stale.
    await env.staticPod(name, { phase: 'Running', labels: { tidy: 'yes' } });
    const r = await sent('source', apiServerSourceEvent(claimedFailed(created)));
    expectNoWrongWrites(r.writes);
    expect(r.status, r.body).toBeLessThan(500);
    // Which way it was taken: the named source's copy is written at once (refused 409: the old uid); read first, never sent.
    const refused = writesTo(r.all, name).filter((w) => w.code === 409 && w.preconditions?.uid === created.metadata!.uid);
    expect(refused.map(describeWrite)).toHaveLength(mode === 'trusted' ? 1 : 0);
  });

  it('an event claiming a Running pod under a PodDisruptionBudget with 0 disruptions allowed failed takes nothing away', async () => {
    const app = `budgeted-${m}`;
    await env.core.createNamespacedPod({
      namespace: env.ns,
      body: {
        metadata: { name: app, labels: { tidy: 'yes', app } },
        spec: { schedulerName: 'kube-tidy-adversary-nobody', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
      },
    });
    const pod = await env.staticPod(`${app}-2`, { phase: 'Running', labels: { tidy: 'yes', app } });
    const pdb = sharedCluster().kubeConfig().makeApiClient(PolicyV1Api);
    await pdb.createNamespacedPodDisruptionBudget({
      namespace: env.ns,
      body: { metadata: { name: `zero-${m}` }, spec: { maxUnavailable: 0, selector: { matchLabels: { app } } } },
    });
    await waitFor(
      'the budget observed',
      async () => (await pdb.readNamespacedPodDisruptionBudget({ namespace: env.ns, name: `zero-${m}` })).status?.observedGeneration === 1,
    );
    const r = await sent('forger', apiServerSourceEvent(claimedFailed(pod)));
    expect(
      writesTo(r.writes, `${app}-2`)
        .filter((w) => w.verb === 'delete')
        .map(describeWrite),
    ).toEqual([]);
    expect((await env.core.readNamespacedPod({ namespace: env.ns, name: `${app}-2` })).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('an out-of-order event with its resourceVersion removed, for a pod stored Running, writes nothing', async () => {
    const pod = await env.staticPod(`no-rv-running-${m}`, { phase: 'Running', labels: { tidy: 'yes' } });
    const e = claimedFailed(pod);
    delete e.metadata.resourceVersion;
    const r = await sent('source', apiServerSourceEvent(e));
    expectNoWrongWrites(r.writes);
  });

  it('an event with its resourceVersion removed, for a pod stored Failed, is carried out only with the stored uid and resourceVersion as preconditions', async () => {
    const name = `no-rv-failed-${m}`;
    const pod = await env.staticPod(name, { phase: 'Failed', labels: { tidy: 'yes' } });
    const e = asEvent(pod);
    delete e.metadata.resourceVersion;
    const r = await sent('source', apiServerSourceEvent(e));
    const writes = writesTo(r.writes, name);
    expect(writes.length, r.body).toBeGreaterThan(0);
    for (const w of writes) expect(w.preconditions, describeWrite(w)).toEqual({ uid: pod.metadata!.uid, resourceVersion: pod.metadata!.resourceVersion });
    expect(r.status, r.body).toBe(200);
  });

  it('an event older than the stored pod (reordered: its owner opted it out since), for a pod stored Failed, deletes nothing', async () => {
    const name = `reordered-${m}`;
    const earlier = asEvent(await env.staticPod(name, { phase: 'Failed', labels: { tidy: 'yes' } }));
    await env.core.patchNamespacedPod({ namespace: env.ns, name, body: { metadata: { labels: { tidy: 'no' } } } }, mergePatch);
    const r = await sent('source', apiServerSourceEvent(earlier));
    expectNoWrongWrites(r.writes);
    expect(r.status, r.body).toBeLessThan(500);
    expect((await env.core.readNamespacedPod({ namespace: env.ns, name })).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('the same event delivered 10 times at once deletes once and records exactly one Kubernetes Event', async () => {
    // A finalizer keeps the pod after the first DELETE, as a kubelet's grace period does: a
    // DELETE without a resourceVersion precondition then succeeds again and again.
    const name = `replayed-${m}`;
    const pod = await env.staticPod(name, { phase: 'Failed', labels: { tidy: 'yes' }, finalizers: [HOLD] });
    const w = apiServerSourceEvent(asEvent(pod), { id: `replayed-${m}-1`, headers: as.source });
    const mark = env.mark();
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(fn.url, w)));
    const writes = await env.writesSince(mark);
    expect(answers.map((a) => a.status).filter((s) => s >= 500)).toEqual([]);
    const deletes = writesTo(writes, name).filter((x) => x.code < 300);
    const events = writes.filter((x) => x.resource === 'events' && x.verb === 'create' && x.code < 300);
    await release(env.core, env.ns, name);
    expect(deletes.map(describeWrite), deletes.map(describeWrite).join('\n')).toHaveLength(1);
    expect(events.map(describeWrite), events.map(describeWrite).join('\n')).toHaveLength(1);
  });
});

describe('bounded work per request', () => {
  it('a 1 MiB pod name is answered 4xx quickly, others are still answered meanwhile, and SIGTERM ends the process promptly', async () => {
    const fn = await env.spawn('podTerminated', {});
    try {
      // Warm: the first request loads the Kubernetes client (and, under tsx, compiles it).
      await post(fn.url, apiServerSourceEvent(failedPod(env.ns, 'absent-pod')), 30_000);
      const huge = apiServerSourceEvent(failedPod(env.ns, 'a'.repeat(1 << 20)), { mode: 'structured' });
      const first = post(fn.url, huge, 30_000);
      // Another request while the hostile one is in: it must not wait behind it.
      const small = await post(fn.url, apiServerSourceEvent(failedPod(env.ns, 'absent-pod')), 30_000);
      expect(small.status, small.body).toBeLessThan(500);
      expect(small.ms).toBeLessThan(3_000);
      const r = await first;
      expect(r.status, r.body).toBeGreaterThanOrEqual(400);
      expect(r.status, r.body).toBeLessThan(500);
      expect(r.ms).toBeLessThan(3_000);
      // Again, and SIGTERM while it is in: the process must still hear the signal.
      void post(fn.url, huge, 30_000);
      await new Promise((res) => setTimeout(res, 200));
      const sent = Date.now();
      fn.kill('SIGTERM');
      const ended = await Promise.race([fn.exited.then(() => Date.now() - sent), new Promise<number>((res) => setTimeout(() => res(Infinity), 15_000))]);
      expect(ended).toBeLessThan(7_000);
    } finally {
      fn.kill('SIGKILL');
      await fn.stop();
    }
  }, 90_000);
});

describe('bad input is 4xx, not 500 (the bridge and Knative retry 5xx)', () => {
  it('a pod event with creationTimestamp null is refused with 4xx', async () => {
    const r = await attempt('podTerminated', apiServerSourceEvent(failedPod(env.ns, 'null-time', { creationTimestamp: null })));
    expect(r.status, r.body).toBeGreaterThanOrEqual(400);
    expect(r.status, r.body).toBeLessThan(500);
    expectNoWrongWrites(r.writes);
  });

  it('a pod event whose ownerReferences is an object, not a list, is refused with 4xx', async () => {
    const r = await attempt('podTerminated', apiServerSourceEvent(failedPod(env.ns, 'owners-object', { ownerReferences: {} })));
    expect(r.status, r.body).toBeGreaterThanOrEqual(400);
    expect(r.status, r.body).toBeLessThan(500);
    expectNoWrongWrites(r.writes);
  });

  it("a YAML alias bomb as invoke's policy is refused with 4xx", async () => {
    const levels = 'abcdefghi'.split('');
    const bomb = [
      `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`,
      ...levels.slice(1).map((l, i) => `${l}: &${l} [${Array(9).fill(`*${levels[i]}`).join(',')}]`),
    ].join('\n');
    const r = await attempt('invoke', json({ mode: 'plan', policy: bomb }));
    expect(r.status, r.body).toBeGreaterThanOrEqual(400);
    expect(r.status, r.body).toBeLessThan(500);
  });

  it('an invalid labelSelector in an invoke request is refused with 4xx', async () => {
    const r = await attempt('invoke', json({ mode: 'plan', labelSelector: 'app in (web' }));
    expect(r.status, r.body).toBeGreaterThanOrEqual(400);
    expect(r.status, r.body).toBeLessThan(500);
  });
});

describe('the status code tells the truth', () => {
  it('a pod event without a namespace is refused with 4xx, not answered 200 failed', async () => {
    const r = await attempt('podTerminated', apiServerSourceEvent(failedPod(undefined, 'nowhere')));
    expect(r.status, r.body).toBeGreaterThanOrEqual(400);
    expect(r.status, r.body).toBeLessThan(500);
    expectNoWrongWrites(r.writes);
  });

  it('a delete the cluster refuses for good (403 from RBAC) is not answered 2xx', async () => {
    // podTerminated as an account that may read pods but not delete or evict them.
    const kc = sharedCluster().kubeConfig();
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    const role = `${env.ns}-read-pods`;
    await rbac.createClusterRole({
      body: {
        metadata: { name: role },
        rules: [
          { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
          { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create'] },
        ],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name: 'read-only', namespace: env.ns }],
      },
    });
    try {
      await env.core.createNamespacedServiceAccount({ namespace: env.ns, body: { metadata: { name: 'read-only' } } });
      const token = await env.core.createNamespacedServiceAccountToken({
        name: 'read-only',
        namespace: env.ns,
        body: { spec: { expirationSeconds: 3600, audiences: [] } },
      });
      const c = kc.getCurrentCluster()!;
      const file = writeKubeconfig(
        join(mkdtempSync(join(tmpdir(), 'kube-tidy-ro-')), 'kubeconfig'),
        'ro',
        c.server,
        Buffer.from(c.caData ?? '', 'base64').toString('utf8'),
        token.status!.token,
      );
      const fn = await env.spawn('podTerminated', { KUBECONFIG: file });
      const pod = await env.staticPod('refused', { phase: 'Failed', labels: { tidy: 'yes' } });
      const r = await post(fn.url, apiServerSourceEvent(asEvent(pod)));
      await fn.stop();
      expect(r.status, r.body).toBeGreaterThanOrEqual(400);
      expect(r.body).toMatch(/forbidden|403/i);
    } finally {
      await rbac.deleteClusterRoleBinding({ name: role }).catch(() => undefined);
      await rbac.deleteClusterRole({ name: role }).catch(() => undefined);
    }
  });

  it('a sweep while the API server goes down after the LIST is not answered 200 swept (5xx, or a clearly partial answer)', async () => {
    for (const n of ['down-1', 'down-2', 'down-3']) await env.staticPod(n, { phase: 'Failed', labels: { tidy: 'yes' } });
    const flaky = await flakyApiServer(
      sharedCluster().kubeconfigPath,
      env.ids.kubeconfig('sweep'),
      join(mkdtempSync(join(tmpdir(), 'kube-tidy-flaky-')), 'kubeconfig'),
    );
    const fn = await env.spawn('sweep', { KUBECONFIG: flaky.kubeconfig });
    try {
      const r = await post(fn.url, pingTick());
      expect(flaky.cut).toBeGreaterThan(0);
      const partialAnswer = r.status < 300 && r.json?.outcome !== 'swept';
      expect(r.status >= 500 || partialAnswer, `${r.status} ${r.body.slice(0, 300)}`).toBe(true);
    } finally {
      await fn.stop();
      await flaky.stop();
    }
  });

  it('a sweep while the API server is not there at all answers 5xx', async () => {
    const [port] = await freePorts(1);
    const c = sharedCluster().kubeConfig().getCurrentCluster()!;
    const file = writeKubeconfig(
      join(mkdtempSync(join(tmpdir(), 'kube-tidy-dead-')), 'kubeconfig'),
      'dead',
      `https://127.0.0.1:${port}`,
      Buffer.from(c.caData ?? '', 'base64').toString('utf8'),
      'no-token',
    );
    const fn = await env.spawn('sweep', { KUBECONFIG: file });
    const r = await post(fn.url, pingTick());
    await fn.stop();
    expect(r.status, r.body).toBeGreaterThanOrEqual(500);
  });
});

describe('bodies are bounded: 200 KB of gzip inflating to 200 MB', () => {
  const bombed: Record<Target, Record<string, string>> = {
    podTerminated: apiServerSourceEvent(failedPod('x', 'y')).headers,
    evacuation: apiServerSourceEvent(failedPod('x', 'y')).headers,
    jobDeleted: apiServerSourceEvent({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'y', namespace: 'x' } }, { verb: 'delete' }).headers,
    sweep: pingTick().headers,
    orphanSweep: pingTick().headers,
    defrag: pingTick().headers,
    invoke: { 'content-type': 'application/json' },
  };
  for (const target of TARGETS) {
    it(`${target} refuses it (413 or 415) without its memory (RSS) growing by 40 MB or more`, async () => {
      // Defrag's tick would really evict on the shared cluster if the body got through.
      const fn = await env.spawn(target, { LOG_LEVEL: 'info', ...(target === 'defrag' ? { DRY_RUN: 'true' } : {}) });
      try {
        // The client and sender keys load in the background after listen; measure the body alone.
        await fn.warmed();
        const before = fn.rss();
        let peak = before;
        const sampler = setInterval(() => (peak = Math.max(peak, fn.rss())), 10);
        const r = await post(fn.url, { headers: { ...bombed[target], 'content-encoding': 'gzip' }, body: gzipBomb(200 << 20) }, 60_000);
        clearInterval(sampler);
        peak = Math.max(peak, fn.rss());
        console.log(`[adversary] gzip bomb to ${target}: ${r.status} in ${r.ms} ms, RSS ${(before / 2 ** 20).toFixed(0)} -> ${(peak / 2 ** 20).toFixed(0)} MB`);
        expect([413, 415], `${r.status} ${r.body.slice(0, 200)}`).toContain(r.status);
        expect(peak, `RSS ${(before / 2 ** 20).toFixed(0)} MB -> ${(peak / 2 ** 20).toFixed(0)} MB`).toBeLessThan(before + 40 * 2 ** 20);
      } finally {
        await fn.stop();
      }
    }, 90_000);
  }
});

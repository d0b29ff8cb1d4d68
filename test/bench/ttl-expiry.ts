// TTL on any kind, expiry -> gone (issue 47 item 5, its first number): N labelled Deployments
// (kube-janitor's `janitor/ttl`) and N Namespaces (Kyverno's `cleanup.kyverno.io/ttl`), with
// TTLs staggered over TTL_MIN_S..TTL_MIN_S+10 s, on a control plane of the bench's own, removed by
// the event path alone (no sweep): the kinds the ttl rule names watched from discovery as the
// standalone program watches them, into objectUpdated in process; each object timed at its expiry
// and deleted then. Measured per object: the first moment a LIST sees it going (a
// deletionTimestamp, or gone) minus its expiry (its stored creationTimestamp + its TTL, both
// whole seconds, as both Kyverno and kube-tidy count a duration here); the LISTs run every
// POLL_MS, which bounds the figures' resolution. Beside them, what the peers' documented polling
// gives: a poll every I seconds removes an object I/2 after its expiry on average, I at worst
// (Kyverno's cleanup controller: I = 1 min by default; kube-janitor's Go rewrite: 1 h).
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { objectUpdated } from '../../functions/object-updated.js';
import { startBridge, type Bridge } from '../../shared/hosts/bridge/bridge.js';
import type { Served } from '../../shared/hosts/server/setup.js';
import { inProcessDispatch } from '../../shared/hosts/standalone/dispatch.js';
import { routesOf } from '../../shared/hosts/standalone/routing.js';
import { startRuntime } from '../../shared/runtime/runtime.js';
import { waitFor } from '../harness/index.js';
import { withCluster } from './cluster.js';
import { createNamespace } from './pods.js';
import { spread } from './stats.js';
import { previewsRule } from '../fixtures/ttl-previews.js';

const TTL_MIN_S = 12;
const POLL_MS = 100;
const MARK = { 'bench.kube-tidy.dev/ttl-expiry': 'yes' };

const policy = {
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  profiles: [],
  kubeTidy: {
    ttl: [previewsRule({ matchLabels: MARK })],
  },
};

const ttlOf = (i: number) => TTL_MIN_S + (i % 11);

async function inBatches(n: number, make: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i += 10) await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, k) => make(i + k)));
}

/** Each object's expiry (ms), by name, from its stored creationTimestamp. */
async function makeObjects(kc: KubeConfig, n: number) {
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const expiry = { deployments: new Map<string, number>(), namespaces: new Map<string, number>() };
  const at = (created: Date | undefined, i: number) => new Date(created!).getTime() + ttlOf(i) * 1000;
  await inBatches(n, async (i) => {
    const name = `app-${i}`;
    const labels = { app: name };
    const d = await apps.createNamespacedDeployment({
      namespace: 'previews',
      body: {
        metadata: { name, labels: MARK, annotations: { 'janitor/ttl': `${ttlOf(i)}s` } },
        spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'pause' }] } } },
      },
    });
    expiry.deployments.set(name, at(d.metadata?.creationTimestamp, i));
  });
  await inBatches(n, async (i) => {
    const name = `preview-${i}`;
    const ns = await core.createNamespace({ body: { metadata: { name, labels: { ...MARK, 'cleanup.kyverno.io/ttl': `${ttlOf(i)}s` } } } });
    expiry.namespaces.set(name, at(ns.metadata?.creationTimestamp, i));
  });
  return expiry;
}

/** When each object was first seen going: a LIST of each kind every POLL_MS until all are. */
async function goingTimes(kc: KubeConfig, expiry: Awaited<ReturnType<typeof makeObjects>>) {
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const seen = { deployments: new Map<string, number>(), namespaces: new Map<string, number>() };
  const mark = (into: Map<string, number>, names: Iterable<string>, standing: Set<string>, now: number) => {
    for (const name of names) if (!into.has(name) && !standing.has(name)) into.set(name, now);
  };
  const selector = 'bench.kube-tidy.dev/ttl-expiry=yes';
  await waitFor(
    'every object going',
    async () => {
      const [ds, nss] = await Promise.all([
        apps.listNamespacedDeployment({ namespace: 'previews', labelSelector: selector }),
        core.listNamespace({ labelSelector: selector }),
      ]);
      const now = Date.now();
      const standing = (items: { metadata?: { name?: string; deletionTimestamp?: Date } }[]) =>
        new Set(items.filter((o) => !o.metadata?.deletionTimestamp).map((o) => o.metadata!.name!));
      mark(seen.deployments, expiry.deployments.keys(), standing(ds.items), now);
      mark(seen.namespaces, expiry.namespaces.keys(), standing(nss.items), now);
      return seen.deployments.size === expiry.deployments.size && seen.namespaces.size === expiry.namespaces.size ? true : undefined;
    },
    { timeoutMs: 10 * 60_000, intervalMs: POLL_MS },
  );
  const after = (going: Map<string, number>, due: Map<string, number>) => [...going].map(([name, t]) => t - due.get(name)!);
  return { deployments: after(seen.deployments, expiry.deployments), namespaces: after(seen.namespaces, expiry.namespaces) };
}

/** Expiry -> going, in seconds: the median, the worst, and any before the expiry (a removal that early would be a bug). */
const figures = (ms: number[]) => {
  const s = spread(
    ms.map((x) => x / 1000),
    2,
  );
  return { n: ms.length, medianS: s.p50, worstS: s.max, early: ms.filter((x) => x < -250).length };
};

export async function runTtlExpiryBench(n = 50) {
  return withCluster('bench-ttl-expiry', 1, async (cluster) => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await createNamespace(core, 'previews');
    const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-bench-ttl-')), 'policy.json');
    writeFileSync(file, JSON.stringify(policy));
    const rt = await startRuntime(
      { POLICY_FILE: file, KUBECONFIG: cluster.kubeconfigPath, BRAKES_NAMESPACE: 'kube-tidy-bench', DRY_RUN: 'false' },
      { log: pino({ level: 'silent' }), kubeConfig: kc },
    );
    const parts = await objectUpdated.setup(rt);
    const served = [{ spec: objectUpdated, parts } as unknown as Served];
    const dispatch = inProcessDispatch({ served, routes: routesOf(served), rt, log: rt.log, holds: () => true });
    const bridges: Bridge[] = [];
    for (const k of await objectUpdated.accepts.watches!(parts))
      bridges.push(
        await startBridge({
          kubeConfig: kc,
          sink: { name: 'objectUpdated', send: dispatch.event },
          kinds: [k],
          labelSelector: 'bench.kube-tidy.dev/ttl-expiry=yes',
          log: rt.log,
          statsIntervalMs: 0,
        }),
      );
    try {
      const expiry = await makeObjects(kc, n);
      const after = await goingTimes(kc, expiry);
      return {
        objects: `${n} Deployments (janitor/ttl) + ${n} Namespaces (cleanup.kyverno.io/ttl), TTLs ${TTL_MIN_S}-${TTL_MIN_S + 10} s, event path (watch from discovery -> objectUpdated), no sweep`,
        deployment: figures(after.deployments),
        namespace: figures(after.namespaces),
        resolutionMs: POLL_MS,
        kyvernoPolling: { intervalS: 60, meanS: 30, worstS: 60 },
        kubeJanitorPolling: { intervalS: 3600, meanS: 1800, worstS: 3600 },
      };
    } finally {
      await Promise.all(bridges.map((b) => b.stop({ deadlineMs: 0 })));
      parts.stop();
    }
  });
}

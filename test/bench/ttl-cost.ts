// Bench `ttl-cost` (issue 47 item 5): what TTL on any kind costs, on a control plane of its own.
//  a. N expired ConfigMaps and N expired Deployments (Kyverno's label, a date past) in one
//     namespace, removed by one sweep whose one ttl rule names both kinds, beside the plain
//     client of objects-cost (objects-plain-client.mjs: one LIST per kind, one DELETE each with
//     uid + resourceVersion, Background, 32 in flight) emptying a namespace holding the same:
//     API requests and CPU per removal.
//  b. A namespace holding 1,000 objects (ConfigMaps, Secrets, a few Deployments and suspended
//     Jobs) and two small ones, all expired, under a rate `kinds: [Namespace]` of 1 per 10m: the
//     sweep's requests, how long until the big namespace is gone (the namespace controller
//     deletes its content), and that the rate held (the others deferred, again on a second sweep).
//  c. The listing one sweep makes of every object of a kind: M ConfigMaps in 20 namespaces, 20
//     of them labelled, one rule in report mode; with the default sources (kube-janitor's
//     annotations: every ConfigMap listed) and with Kyverno's label alone (listed by
//     labelSelector=cleanup.kyverno.io/ttl on the server): requests, bytes, time, CPU and the
//     heap the pass grew by.
// kube-tidy runs in this process through the sweep target every transport shares; its CPU is
// process.cpuUsage() over the sweep, the bench idle meanwhile; its requests are those its
// clients send, Kubernetes Events included (grouped per namespace, kind and rule by the process's
// series; TTL_COST_SERIES=off: one per object, as before). `npm run bench ttl-cost -- 200 20000`
// (N, M); TTL_COST_PARTS=a,b,c chooses.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, BatchV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { sweep } from '../../functions/sweep.js';
import type { TickEvent } from '../../shared/cloudevents/index.js';
import { kubeClients } from '../../shared/kube/index.js';
import { startRuntime } from '../../shared/runtime/runtime.js';
import { resolveContextOf, resolver } from '../../shared/serve/resolve.js';
import { waitFor, type Cluster } from '../harness/index.js';
import { withCluster } from './cluster.js';
import { ceiling, measured } from './objects-cost.js';
import { createNamespace } from './pods.js';
import { connection } from './scale/ceiling.js';

const EXPIRED = { 'cleanup.kyverno.io/ttl': '2020-01-01' };
const WIDTH = 20;
const round2 = (x: number) => Math.round(x * 100) / 100;
const KINDS = {
  configMap: { version: 'v1', kind: 'ConfigMap' },
  deployment: { group: 'apps', version: 'v1', kind: 'Deployment' },
  namespace: { version: 'v1', kind: 'Namespace' },
};

async function inParallel(n: number, each: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: WIDTH }, async () => {
      while (next < n) await each(next++);
    }),
  );
}

/** What `populate` puts in a namespace: how many of each, and the labels on all or on the first `labelled` ConfigMaps. */
interface Population {
  configMaps?: number;
  secrets?: number;
  deployments?: number;
  jobs?: number;
  labels?: Record<string, string>;
  labelled?: number;
}

const deployment = (name: string, labels: Record<string, string>) => ({
  metadata: { name, labels },
  // No replica: its cost is the object's, not its pods'.
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'pause' }] } },
  },
});

async function populate(kc: KubeConfig, namespace: string, p: Population): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const labels = (i: number) => (p.labelled === undefined || i < p.labelled ? (p.labels ?? {}) : {});
  // A ConfigMap of a few hundred bytes, as most are.
  const data = { 'settings.yaml': 'x'.repeat(256) };
  await inParallel(p.configMaps ?? 0, (i) => core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `cm-${i}`, labels: labels(i) }, data } }));
  await inParallel(p.secrets ?? 0, (i) =>
    core.createNamespacedSecret({ namespace, body: { metadata: { name: `secret-${i}`, labels: labels(i) }, stringData: data } }),
  );
  const apps = kc.makeApiClient(AppsV1Api);
  await inParallel(p.deployments ?? 0, (i) => apps.createNamespacedDeployment({ namespace, body: deployment(`deploy-${i}`, labels(i)) }));
  const batch = kc.makeApiClient(BatchV1Api);
  const job = (i: number) => ({
    metadata: { name: `job-${i}`, labels: labels(i) },
    // Suspended: no pod is made.
    spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'pause' }] } } },
  });
  await inParallel(p.jobs ?? 0, (i) => batch.createNamespacedJob({ namespace, body: job(i) }));
}

/** A runtime whose policy is `kubeTidy` alone (ttl rules, brakes), its requests counted, and one sweep through the target's resolver. */
async function sweeper(cluster: Cluster, kc: KubeConfig, kubeTidy: object) {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-bench-ttl-cost-')), 'policy.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', profiles: [], kubeTidy }));
  const counted = { requests: 0, lists: [] as string[] };
  const clients = kubeClients(kc, {
    onRequest: (method, url) => {
      counted.requests++;
      if (method === 'GET') counted.lists.push(url);
    },
  });
  const env = {
    POLICY_FILE: file,
    KUBECONFIG: cluster.kubeconfigPath,
    BRAKES_NAMESPACE: 'kube-tidy-bench',
    REQUEST_DEADLINE_SECONDS: '600',
    // TTL_COST_SERIES=off: an Event per object removed, as before the objects' Events were grouped (issue 47).
    ...(process.env.TTL_COST_SERIES === 'off' ? { EVENT_SERIES_WINDOW_SECONDS: '0' } : {}),
  };
  const rt = await startRuntime(env, { log: pino({ level: 'silent' }), kubeConfig: kc, clients });
  const resolve = resolver(sweep, await sweep.setup(rt), resolveContextOf(rt));
  const tick: TickEvent = { type: 'tick', data: {}, origin: { bridge: 'knative-pingsource', transport: 'plain' } };
  return {
    counted,
    sweep: async () => {
      const answer = (await resolve.event(tick)).body as { objects?: { outcomes: Record<string, number>; considered: number } };
      if (!answer.objects) throw new Error(`the sweep ran no ttl rule: ${JSON.stringify(answer).slice(0, 500)}`);
      return answer.objects;
    },
    close: () => clients.close(),
  };
}

/** Until the deployment controller has written every Deployment's status: a delete tied to the resourceVersion listed before would meet 409. */
async function deploymentsSettled(kc: KubeConfig, namespace: string): Promise<void> {
  const apps = kc.makeApiClient(AppsV1Api);
  await waitFor(
    `the Deployments of ${namespace} observed`,
    async () =>
      (await apps.listNamespacedDeployment({ namespace })).items.every((d) => d.status?.observedGeneration === d.metadata?.generation) ? true : undefined,
    { timeoutMs: 10 * 60_000, intervalMs: 1000 },
  );
}

/** (a) N expired ConfigMaps and N expired Deployments: one sweep beside the plain client. */
async function removals(cluster: Cluster, kc: KubeConfig, n: number) {
  const core = kc.makeApiClient(CoreV1Api);
  const spaces = { ceiling: 'ttl-ceiling', pass: 'ttl-pass' };
  for (const ns of Object.values(spaces)) {
    await createNamespace(core, ns);
    await populate(kc, ns, { configMaps: n, deployments: n, labels: EXPIRED });
  }
  for (const ns of Object.values(spaces)) await deploymentsSettled(kc, ns);
  const plain = await ceiling(cluster.kubeconfigPath, spaces.ceiling, [
    { root: '/api/v1', plural: 'configmaps' },
    { root: '/apis/apps/v1', plural: 'deployments' },
  ]);
  // The namespace's own kube-root-ca.crt is a ConfigMap too, without the label: the plain client deletes it as well.
  if (plain.deleted < 2 * n) throw new Error(`the ceiling deleted ${plain.deleted} of ${2 * n}: ${JSON.stringify(plain.failed)}`);
  const rule = { name: 'expired', kinds: [KINDS.configMap, KINDS.deployment], mode: 'delete', namespaces: { include: [spaces.pass] } };
  const s = await sweeper(cluster, kc, { ttl: [rule] });
  const sent0 = s.counted.requests;
  const run = await measured('ttl-pass', s.sweep);
  s.close();
  if (run.value.outcomes.deleted !== 2 * n) throw new Error(`the sweep deleted ${JSON.stringify(run.value.outcomes)} of ${2 * n}`);
  const removed = 2 * n;
  const ceilingCpu = round2((plain.cpuMs.list + plain.cpuMs.delete) / plain.deleted);
  return {
    removed,
    // Its requests: a DELETE each and one LIST page per 500 of each kind.
    ceiling: {
      requestsPerRemoval: round2((plain.deleted + Math.ceil((n + 1) / 500) + Math.ceil(n / 500)) / plain.deleted),
      cpuMsPerRemoval: ceilingCpu,
      seconds: round2(plain.listSeconds + plain.writeSeconds),
    },
    sweep: {
      requestsPerRemoval: round2((s.counted.requests - sent0) / removed),
      cpuMsPerRemoval: round2(run.cpuMs / removed),
      seconds: round2(run.ms / 1000),
      vsCeilingCpu: round2(run.cpuMs / removed / ceilingCpu),
    },
  };
}

/** Whether the Namespace `name` is still there (Terminating counts as there). */
const exists = (core: CoreV1Api, name: string) =>
  core.readNamespace({ name }).then(
    () => true,
    () => false,
  );

/** (b) A namespace of 1,000 objects and two small ones, expired, under 1 Namespace per 10m. */
async function bigNamespace(cluster: Cluster, kc: KubeConfig) {
  const core = kc.makeApiClient(CoreV1Api);
  const big = 'ttl-big';
  const small = ['ttl-small-1', 'ttl-small-2'];
  // The big one expired first: the plan goes oldest expiry first, so it is the one the rate lets through.
  await core.createNamespace({ body: { metadata: { name: big, labels: { 'cleanup.kyverno.io/ttl': '2020-01-01' } } } });
  for (const name of small) await core.createNamespace({ body: { metadata: { name, labels: { 'cleanup.kyverno.io/ttl': '2021-01-01' } } } });
  await populate(kc, big, { configMaps: 690, secrets: 290, deployments: 10, jobs: 10 });
  await createNamespace(core, 'kube-tidy-bench').catch(() => undefined);
  const rule = { name: 'previews', kinds: [KINDS.namespace], mode: 'delete', namespaces: { include: [big, ...small] } };
  const s = await sweeper(cluster, kc, { ttl: [rule], brakes: { rates: [{ max: 1, per: '10m', kinds: ['Namespace'] }] } });
  const sent0 = s.counted.requests;
  const t0 = performance.now();
  const first = await measured('ttl-namespace', s.sweep);
  const requests = s.counted.requests - sent0;
  await waitFor(`namespace ${big} gone`, async () => ((await exists(core, big)) ? undefined : true), { timeoutMs: 15 * 60_000, intervalMs: 250 });
  const goneSeconds = round2((performance.now() - t0) / 1000);
  const second = await s.sweep();
  s.close();
  const stillThere = await Promise.all(small.map((name) => exists(core, name)));
  return {
    objects: 1000,
    sweep: { requests, seconds: round2(first.ms / 1000), outcomes: first.value.outcomes },
    goneSeconds,
    secondSweep: second.outcomes,
    rateHeld: first.value.outcomes.deleted === 1 && !second.outcomes.deleted && stillThere.every(Boolean),
  };
}

/** The bytes the API server sends for the LISTs `urls` names (the pass's own, sent again as they were: same paths and queries, no compression asked). */
async function bytesOf(kubeconfigPath: string, urls: readonly string[]): Promise<number> {
  const c = await connection(kubeconfigPath);
  let bytes = 0;
  for (const url of urls)
    bytes += await new Promise<number>((resolve, reject) => {
      const headers = { accept: 'application/json', ...(c.authorization ? { authorization: c.authorization } : {}) };
      const u = new URL(url, c.server);
      const req = request(new URL(u.pathname + u.search, c.server), { ca: c.ca, cert: c.cert, key: c.key, headers }, (res) => {
        let n = 0;
        res.on('data', (d: Buffer) => (n += d.length));
        res.on('end', () => resolve(n));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  return bytes;
}

/** One sweep of a ConfigMap rule in report mode: what its listing cost. */
async function oneListing(cluster: Cluster, kc: KubeConfig, sources: string[] | undefined) {
  const rule = { name: 'configs', kinds: [KINDS.configMap], mode: 'report', ...(sources ? { sources } : {}) };
  const s = await sweeper(cluster, kc, { ttl: [rule] });
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - base)), 10);
  const sent0 = s.counted.requests;
  const lists0 = s.counted.lists.length;
  const run = await measured(`ttl-list-${sources ? 'label' : 'all'}`, s.sweep);
  clearInterval(sampler);
  s.close();
  const lists = s.counted.lists.slice(lists0).filter((u) => u.includes('/configmaps'));
  const mb = (await bytesOf(cluster.kubeconfigPath, lists)) / 2 ** 20;
  return {
    considered: run.value.considered,
    reported: run.value.outcomes.reported ?? 0,
    requests: s.counted.requests - sent0,
    configMapLists: lists.length,
    listedMiB: round2(mb),
    seconds: round2(run.ms / 1000),
    cpuMs: Math.round(run.cpuMs),
    heapGrowthMiB: round2(peak / 2 ** 20),
  };
}

/** (c) M ConfigMaps in 20 namespaces, 20 labelled: one sweep's listing, every ConfigMap, then by label. */
async function listing(cluster: Cluster, kc: KubeConfig, m: number) {
  const core = kc.makeApiClient(CoreV1Api);
  const per = Math.ceil(m / 20);
  for (let i = 0; i < 20; i++) {
    await core.createNamespace({ body: { metadata: { name: `ttl-many-${i}` } } });
    await populate(kc, `ttl-many-${i}`, { configMaps: per, labels: { 'cleanup.kyverno.io/ttl': '2020-01-01' }, labelled: 1 });
  }
  // Each once before measuring: the API server's watch cache and this process's code warm alike.
  await oneListing(cluster, kc, ['cleanup.kyverno.io/ttl']);
  const everything = await oneListing(cluster, kc, undefined);
  const byLabel = await oneListing(cluster, kc, ['cleanup.kyverno.io/ttl']);
  return { configMaps: per * 20, labelled: 20, everyConfigMap: everything, byLabel };
}

export async function runTtlCostBench(n = 200, m = 20_000) {
  const parts = new Set((process.env.TTL_COST_PARTS ?? 'a,b,c').split(','));
  return withCluster('bench-ttl-cost', 1, async (cluster) => {
    const kc = cluster.kubeConfig();
    return {
      ...(parts.has('a') ? { removals: await removals(cluster, kc, n) } : {}),
      ...(parts.has('b') ? { namespace: await bigNamespace(cluster, kc) } : {}),
      ...(parts.has('c') ? { listing: await listing(cluster, kc, m) } : {}),
    };
  });
}

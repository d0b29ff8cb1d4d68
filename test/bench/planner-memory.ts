// Bench `planner-memory` (issue 27): where a sweep's planner spends its memory, without a control
// plane. One process serves LIST pages of pods as the API server stores the scale bench's
// population (scale/populate.ts: a quarter Failed, a quarter Succeeded, half Pending; JSON
// with the defaults, the service-account volume and the managedFields the API server adds),
// generated a page at a time, and answers DELETEs; another runs the production pass over it
// (runPass with the sweep's options: client-node's deserialization, decide per page,
// AcrossPages, the targets, the due-soon list, 32 writes in flight). Each size runs in fresh
// processes, twice: once for the peaks (RSS high-water mark, heap sampled), once with a forced
// GC after the last page for what the plan keeps (optionally a heap snapshot, summarised by
// constructor). Only to find where memory goes: the figures that count come from the real API
// server and the production bundle (`npm run bench scale`).
//
// `npm run bench planner-memory -- 20000,150000`; PLANNER_HEAP_SNAPSHOT=1 adds the summary.
// PLANNER_VIA=cli-json or cli-table: the planner process runs the CLI's live plan instead
// (`kube-tidy plan --kubeconfig ... --policy ... -o json|table`, liveCommand as main.ts calls
// it, its output counted and dropped), for the same peaks.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { KubeConfig } from '@kubernetes/client-node';
import { runPass } from '../../shared/cleanup/index.js';
import { cliHandle } from '../../shared/hosts/cli/handle.js';
import { liveCommand } from '../../shared/hosts/cli/live.js';
import { kubeClients } from '../../shared/kube/clients.js';
import { createLogger } from '../../shared/log.js';
import { loadPolicy } from '../../shared/policy/load.js';
import { NAMESPACES, NODES, SCALE_POLICY } from './scale/populate.js';
import { Notifier } from '../../shared/notify/notifier.js';
import { MetricsRecorder } from '../../shared/metrics/recorder.js';

const SELF = fileURLToPath(import.meta.url);
const MiB = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;
const PHASES = ['Failed', 'Succeeded', 'Pending', 'Pending'] as const;

// ---- the API server's side: pods as stored, a page at a time ----

const created = '2026-11-20T10:00:00Z';
const hex = (i: number, salt: number) => ((i * 2654435761 + salt * 40503) >>> 0).toString(16).padStart(8, '0');
const uidOf = (i: number) => `${hex(i, 1)}-${hex(i, 2).slice(0, 4)}-4${hex(i, 3).slice(0, 3)}-a${hex(i, 4).slice(0, 3)}-${hex(i, 5)}${hex(i, 6).slice(0, 4)}`;
const nameOf = (i: number) => `p-1-${i}`;
const namespaceOf = (i: number) => `scale-${i % NAMESPACES}`;

/** Pod i of the population, as a LIST returns it (the fields a v1.3x API server fills in). */
function storedPod(i: number): object {
  const phase = PHASES[i % 4]!;
  const token = `kube-api-access-${hex(i, 7).slice(0, 5)}`;
  const fieldsV1Spec = {
    'f:metadata': { 'f:labels': { '.': {}, 'f:bench': {}, 'f:kind': {} } },
    'f:spec': {
      'f:containers': {
        'k:{"name":"main"}': {
          '.': {},
          'f:image': {},
          'f:imagePullPolicy': {},
          'f:name': {},
          'f:resources': {},
          'f:terminationMessagePath': {},
          'f:terminationMessagePolicy': {},
        },
      },
      'f:dnsPolicy': {},
      'f:enableServiceLinks': {},
      'f:nodeName': {},
      'f:restartPolicy': {},
      'f:schedulerName': {},
      'f:securityContext': {},
      'f:terminationGracePeriodSeconds': {},
    },
  };
  const managedFields: object[] = [
    { manager: 'unknown', operation: 'Update', apiVersion: 'v1', time: created, fieldsType: 'FieldsV1', fieldsV1: fieldsV1Spec },
  ];
  if (phase !== 'Pending')
    managedFields.push({
      manager: 'unknown',
      operation: 'Update',
      apiVersion: 'v1',
      time: created,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:phase': {} } },
      subresource: 'status',
    });
  return {
    metadata: {
      name: nameOf(i),
      namespace: namespaceOf(i),
      uid: uidOf(i),
      resourceVersion: String(1000 + 2 * i),
      creationTimestamp: created,
      labels: { bench: 'scale', kind: phase.toLowerCase() },
      managedFields,
    },
    spec: {
      volumes: [
        {
          name: token,
          projected: {
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
            ],
            defaultMode: 420,
          },
        },
      ],
      containers: [
        {
          name: 'main',
          image: 'registry.k8s.io/pause:3.10',
          resources: {},
          volumeMounts: [{ name: token, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      serviceAccount: 'default',
      nodeName: `scale-node-${i % NODES}`,
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: { phase, qosClass: 'BestEffort' },
  };
}

/** `status.phase=X` / `status.phase!=X`, comma-joined: what phaseFieldSelector sends. */
function phaseFilter(selector: string | null): (phase: string) => boolean {
  const terms = (selector ?? '').split(',').filter(Boolean);
  return (phase) => terms.every((t) => (t.includes('!=') ? phase !== t.split('!=')[1] : t.startsWith('status.phase=') ? phase === t.split('=')[1] : true));
}

function serve(total: number): Promise<number> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET' && url.pathname === '/api/v1/pods') {
      const limit = Number(url.searchParams.get('limit') ?? total);
      const wanted = phaseFilter(url.searchParams.get('fieldSelector'));
      const items: object[] = [];
      let i = Number(url.searchParams.get('continue') || 0);
      for (; i < total && items.length < limit; i++) if (wanted(PHASES[i % 4]!)) items.push(storedPod(i));
      while (i < total && !wanted(PHASES[i % 4]!)) i++;
      const more = i < total;
      // As the API server: an estimate of what is left on every page but the last (here exact).
      let left = 0;
      for (let r = 0; r < 4; r++) if (wanted(PHASES[r]!)) left += Math.max(0, Math.ceil((total - r) / 4) - Math.ceil((i - r) / 4));
      const metadata = { resourceVersion: '999999999', ...(more ? { continue: String(i), remainingItemCount: left } : {}) };
      res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata, items }));
      return;
    }
    const del = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'DELETE' && del) {
      req.resume();
      // As the API server: the pod as stored (a terminal pod bound to a node no kubelet runs is gone at once).
      res.end(JSON.stringify({ kind: 'Pod', apiVersion: 'v1', ...storedPod(Number(del[2]!.slice('p-1-'.length))) }));
      return;
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${req.method} ${url.pathname}` }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

// ---- the planner's side: the production pass, its memory watched ----

const POLICY = SCALE_POLICY;

export interface PlannerMemory {
  pods: number;
  selected: number;
  pages: number;
  listMs: number;
  durationMs: number;
  peakRssMiB: number;
  peakHeapUsedMiB: number;
  /** Sampled (every 10 ms and at each page) while reading and deciding pages, then while acting. */
  listing: { peakHeapUsedMiB: number; peakRssMiB: number };
  acting: { peakHeapUsedMiB: number; peakRssMiB: number };
  /** Heap after a full GC once the pass returned, minus before it: what its answer holds (an upper bound: V8 may not have swept every page yet). */
  afterPassHeapMiB: number;
  /** V8's heap spaces (used) when heapUsed peaked. */
  spacesAtPeakMiB: string[];
  /** Heap after a full GC once the last page is decided: what the plan keeps (the 'retained' run). */
  retainedHeapMiB?: number;
  /** The same, minus the heap after a full GC before the pass. */
  planHeapMiB?: number;
  heapTotalMiB: number;
  mallocedPeakMiB: number;
  /** The file of the heap snapshot taken at the last page (PLANNER_HEAP_SNAPSHOT), then its summary. */
  snapshot?: string;
  heapSnapshotTop?: string[];
}

async function plan(port: number, mode: 'peak' | 'retained'): Promise<PlannerMemory> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'bench', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'bench' }],
    contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
    currentContext: 'bench',
  });
  const clients = kubeClients(kc, { qps: 1e6, burst: 1e6, timeoutMs: 120_000 });
  const { policy } = loadPolicy(POLICY);
  const h = cliHandle({
    clients,
    policy,
    dryRun: false,
    chunkSize: 500,
    protectedNamespaces: ['kube-system'],
    ledgerNamespace: 'kube-tidy',
    budgetMs: 600_000,
    log: createLogger({ level: 'silent' }),
    notifier: Notifier.off(),
    metrics: MetricsRecorder.off(),
  });
  h.settings.recordEvents = false;
  gc?.();
  const baseHeap = process.memoryUsage().heapUsed;
  // Split at the last page: reading and deciding, then acting.
  const peaks = { listHeap: 0, listRss: 0, actHeap: 0, actRss: 0 };
  let listing = true;
  let atPeak: string[] = [];
  const sample = () => {
    const m = process.memoryUsage();
    if (m.heapUsed > Math.max(peaks.listHeap, peaks.actHeap)) atPeak = getHeapSpaceStatistics().map((x) => `${x.space_name} ${MiB(x.space_used_size)}`);
    if (listing) [peaks.listHeap, peaks.listRss] = [Math.max(peaks.listHeap, m.heapUsed), Math.max(peaks.listRss, m.rss)];
    else [peaks.actHeap, peaks.actRss] = [Math.max(peaks.actHeap, m.heapUsed), Math.max(peaks.actRss, m.rss)];
  };
  const timer = setInterval(sample, 10);
  let retained: number | undefined;
  let snapshot: string | undefined;
  const s = await runPass(h, {
    policy,
    dryRun: false,
    budgetMs: 600_000,
    eventsPerPass: 0,
    dueWithinMs: 1800_000,
    onPage: ({ remainingItemCount }) => {
      sample();
      // PLANNER_GC_EVERY_PAGE=1 (an experiment): a full GC after each page, to tell garbage from what is kept.
      if (process.env.PLANNER_GC_EVERY_PAGE) gc?.();
      if (remainingItemCount !== undefined) return;
      listing = false;
      if (mode !== 'retained') return;
      gc?.();
      retained = process.memoryUsage().heapUsed;
      if (process.env.PLANNER_HEAP_SNAPSHOT) snapshot = writeHeapSnapshot(join(tmpdir(), `planner-${process.pid}.heapsnapshot`));
    },
  });
  clearInterval(timer);
  sample();
  gc?.();
  const afterHeap = process.memoryUsage().heapUsed;
  clients.close();
  const v8 = getHeapStatistics();
  return {
    pods: 0,
    selected: s.selected,
    pages: s.pages,
    listMs: s.listMs,
    durationMs: s.durationMs,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    peakHeapUsedMiB: MiB(Math.max(peaks.listHeap, peaks.actHeap)),
    listing: { peakHeapUsedMiB: MiB(peaks.listHeap), peakRssMiB: MiB(peaks.listRss) },
    acting: { peakHeapUsedMiB: MiB(peaks.actHeap), peakRssMiB: MiB(peaks.actRss) },
    afterPassHeapMiB: MiB(afterHeap - baseHeap),
    spacesAtPeakMiB: atPeak,
    heapTotalMiB: MiB(v8.total_heap_size),
    mallocedPeakMiB: MiB(v8.peak_malloced_memory),
    ...(retained === undefined ? {} : { retainedHeapMiB: MiB(retained), planHeapMiB: MiB(retained - baseHeap) }),
    ...(snapshot ? { snapshot } : {}),
  };
}

/** What the CLI's live plan costs: its peaks while planning every pod the server lists. */
export interface CliPlanMemory {
  pods: number;
  format: 'json' | 'table';
  exitCode: number;
  /** What it printed on stdout (one line per selected pod in json), and the summary line on stderr. */
  outBytes: number;
  summary: string;
  durationMs: number;
  peakRssMiB: number;
  peakHeapUsedMiB: number;
  /** Heap after a full GC once the command answered, minus before it. */
  afterHeapMiB: number;
  snapshot?: string;
  heapSnapshotTop?: string[];
}

async function cliPlan(port: number, format: 'json' | 'table'): Promise<Omit<CliPlanMemory, 'pods'>> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const dir = mkdtempSync(join(tmpdir(), 'planner-cli-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: b, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]\nusers: [{name: b, user: {}}]\ncontexts: [{name: b, context: {cluster: b, user: b}}]\ncurrent-context: b\n`,
  );
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify(POLICY));
  let outBytes = 0;
  let summary = '';
  gc?.();
  const baseHeap = process.memoryUsage().heapUsed;
  let peakHeap = 0;
  const timer = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 10);
  const started = Date.now();
  const exitCode = await liveCommand('plan', ['--kubeconfig', kubeconfig, '--policy', policy, '-o', format, '--timeout', '30m'], {
    out: (t) => void (outBytes += t.length),
    // The summary line kept; a problem (exit code not 0) shown as it comes.
    err: (t) => void (t.startsWith('plan') ? (summary = t.trim()) : t.startsWith('listing') ? undefined : process.stderr.write(t)),
    stdoutIsTTY: false,
  });
  const durationMs = Date.now() - started;
  clearInterval(timer);
  gc?.();
  rmSync(dir, { recursive: true, force: true });
  // PLANNER_HEAP_SNAPSHOT=1: what is still held once the command answered, by constructor.
  const snapshot = process.env.PLANNER_HEAP_SNAPSHOT ? writeHeapSnapshot(join(tmpdir(), `planner-cli-${process.pid}.heapsnapshot`)) : undefined;
  return {
    ...(snapshot ? { snapshot } : {}),
    format,
    exitCode,
    outBytes,
    summary,
    durationMs,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    peakHeapUsedMiB: MiB(peakHeap),
    afterHeapMiB: MiB(process.memoryUsage().heapUsed - baseHeap),
  };
}

/** The biggest constructors by self size in a heap snapshot (strings, arrays and objects by name). */
export function summariseSnapshot(file: string, n = 15): string[] {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const f = snap.snapshot.meta.node_fields;
  const width = f.length;
  const [typeAt, nameAt, sizeAt] = [f.indexOf('type'), f.indexOf('name'), f.indexOf('self_size')];
  const types = snap.snapshot.meta.node_types[0];
  const by = new Map<string, { size: number; count: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const key = type === 'object' || type === 'closure' ? `${type} ${snap.strings[snap.nodes[i + nameAt]!]}` : type;
    const e = by.get(key) ?? { size: 0, count: 0 };
    e.size += snap.nodes[i + sizeAt]!;
    e.count++;
    by.set(key, e);
  }
  return [...by.entries()]
    .sort((a, b) => b[1].size - a[1].size)
    .slice(0, n)
    .map(([k, v]) => `${MiB(v.size)} MiB ${v.count} × ${k}`);
}

// ---- orchestration: a server process and a planner process per run ----

/** PLANNER_NODE_FLAGS: V8 flags for the planner only (e.g. --max-semi-space-size=32), to see what the heap's sizing does. */
function child(args: string[], flags: string[] = []): ChildProcess {
  return fork(SELF, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...process.execArgv, ...flags] });
}

async function oneRun(total: number, mode: 'peak' | 'retained'): Promise<PlannerMemory> {
  const server = child(['server', String(total)]);
  const [port] = (await once(server, 'message')) as [number];
  const planner = child(['planner', String(port), mode], (process.env.PLANNER_NODE_FLAGS ?? '').split(' ').filter(Boolean));
  const [result] = (await once(planner, 'message')) as [PlannerMemory];
  server.kill();
  if (result.snapshot) {
    result.heapSnapshotTop = summariseSnapshot(result.snapshot);
    rmSync(result.snapshot);
    delete result.snapshot;
  }
  return { ...result, pods: total };
}

async function oneCliRun(total: number, format: 'json' | 'table'): Promise<CliPlanMemory> {
  const server = child(['server', String(total)]);
  const [port] = (await once(server, 'message')) as [number];
  const planner = child(['cli', String(port), format], (process.env.PLANNER_NODE_FLAGS ?? '').split(' ').filter(Boolean));
  const [result] = (await once(planner, 'message')) as [Omit<CliPlanMemory, 'pods'>];
  server.kill();
  if (result.snapshot) {
    result.heapSnapshotTop = summariseSnapshot(result.snapshot);
    rmSync(result.snapshot);
    delete result.snapshot;
  }
  return { pods: total, ...result };
}

export async function runPlannerMemoryBench(sizes: number[]): Promise<Record<string, PlannerMemory | CliPlanMemory>> {
  const via = process.env.PLANNER_VIA;
  if (via === 'cli-json' || via === 'cli-table') {
    const cli: Record<string, CliPlanMemory> = {};
    for (const total of sizes) cli[`cli${total}`] = await oneCliRun(total, via === 'cli-json' ? 'json' : 'table');
    return cli;
  }
  const out: Record<string, PlannerMemory> = {};
  for (const total of sizes) {
    const peak = await oneRun(total, 'peak');
    // PLANNER_PEAK_ONLY=1: no second run for what the plan keeps.
    const kept = process.env.PLANNER_PEAK_ONLY ? undefined : await oneRun(total, 'retained');
    out[`pods${total}`] = { ...peak, ...(kept ? pick(kept) : {}) };
  }
  return out;
}

const pick = (r: PlannerMemory) => ({
  ...(r.retainedHeapMiB === undefined ? {} : { retainedHeapMiB: r.retainedHeapMiB, planHeapMiB: r.planHeapMiB }),
  ...(r.heapSnapshotTop ? { heapSnapshotTop: r.heapSnapshotTop } : {}),
});

// As a child process: `server <total>`, `planner <port> <mode>` or `cli <port> <format>`.
if (process.argv[1] === SELF && process.send) {
  const [role, a, b] = process.argv.slice(2);
  if (role === 'server') process.send(await serve(Number(a)));
  else if (role === 'cli') {
    const result = await cliPlan(Number(a), b as 'json' | 'table');
    process.send(result, () => process.exit(0));
  } else if (role === 'planner') {
    const result = await plan(Number(a), b as 'peak' | 'retained');
    process.send(result, () => process.exit(0));
  }
}

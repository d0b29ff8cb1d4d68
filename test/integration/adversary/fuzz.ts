// A seeded fuzz of ApiServerSource events: fast-check generates mutations (names, namespaces,
// uids, resourceVersions, phases, statuses, timestamps, owners, labels, verbs, modes, headers,
// sizes), each applied to a pod as it is stored, and sent to the real functions in small
// concurrent batches. The oracle, per batch: the policy applied to the pods as stored before
// the batch (shared/selection/decide.ts) says which pods may be written; the audit log says what was
// sent. A write outside that set, a pod write without uid + resourceVersion preconditions, or
// a 5xx (nothing is down: no answer may ask for a retry) counts against the functions.
// Used by fuzz.test.ts (CI: a fixed seed, 10,000 events) and `npm run bench fuzz` (more).
import fc from 'fast-check';
import type { V1Pod } from '@kubernetes/client-node';
import { allowedFor, wrongWrites, type Adversary, type StaticPod, type Target } from './env.js';
import { asEvent, type PodJson } from './events.js';
import { BAD_NAMES } from './corpus.js';
import { apiServerSourceEvent, json, pingTick, post, type Wire } from './wire.js';

/** The pods the fuzz works on; those the policy selects are recreated when they go. */
export const WORLD: [string, StaticPod][] = [
  ['v-failed-0', { phase: 'Failed', labels: { tidy: 'yes' } }],
  ['v-failed-1', { phase: 'Failed', labels: { tidy: 'yes' }, exitCode: 137, reason: 'OOMKilled' }],
  ['v-succeeded', { phase: 'Succeeded', labels: { tidy: 'yes' } }],
  ['d-running-0', { phase: 'Running', labels: { tidy: 'yes' } }],
  ['d-running-1', { phase: 'Running', labels: { tidy: 'yes', app: 'web' } }],
  ['d-restarts', { phase: 'Running', labels: { tidy: 'yes' }, restarts: 50 }],
  ['d-pending', { phase: 'Pending', labels: { tidy: 'yes' } }],
  ['d-failed-unlabelled', { phase: 'Failed' }],
  ['d-succeeded-other', { phase: 'Succeeded', labels: { tidy: 'no' } }],
];
const NAMES = WORLD.map(([n]) => n);
const MISSING = '\u0000missing';

/** Kept as stored five times in six: an event with a few plausible changes, not only garbage. */
const keepOr = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: arb, weight: 1 });

const mutation = fc.record({
  base: fc.nat(WORLD.length - 1),
  target: fc
    .integer({ min: 0, max: 99 })
    .map((x): Target => (x < 80 ? 'podTerminated' : x < 86 ? 'evacuation' : x < 92 ? 'jobDeleted' : x < 95 ? 'sweep' : x < 97 ? 'orphanSweep' : 'defrag')),
  name: keepOr(
    fc.oneof(
      fc.constantFrom(...NAMES),
      fc.constantFrom(...BAD_NAMES.map(([, v]) => v)),
      fc.string({ maxLength: 70 }),
      fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?$/),
    ),
  ),
  namespace: keepOr(
    fc.oneof(
      fc.constantFrom('default', 'kube-system', '', '..', 'Adv', MISSING),
      fc.constantFrom(...BAD_NAMES.map(([, v]) => v)),
      fc.string({ maxLength: 20 }),
    ),
  ),
  uid: keepOr(fc.oneof(fc.constantFrom(...NAMES), fc.uuid(), fc.constant(MISSING), fc.integer())),
  resourceVersion: keepOr(fc.oneof(fc.constant(MISSING), fc.constant('1'), fc.bigInt({ min: 0n, max: 10n ** 20n }).map(String), fc.string({ maxLength: 10 }))),
  phase: keepOr(fc.oneof(fc.constantFrom('Failed', 'Succeeded', 'Running', 'Pending', 'Unknown', '', 'failed'), fc.integer())),
  exit: keepOr(
    fc.record({
      exitCode: fc.oneof(fc.integer({ min: -5, max: 300 }), fc.string({ maxLength: 4 })),
      reason: fc.oneof(fc.constantFrom('Error', 'OOMKilled', 'Completed', 'DeadlineExceeded'), fc.string({ maxLength: 12 })),
    }),
  ),
  restarts: keepOr(fc.integer({ min: -1, max: 1000 })),
  creationTimestamp: keepOr(
    fc.oneof(fc.constantFrom(null, '1970-01-01T00:00:00Z', '2999-01-01T00:00:00Z', MISSING), fc.string({ maxLength: 25 }), fc.integer()),
  ),
  owners: keepOr(
    fc.constantFrom<unknown>(
      {},
      [{}],
      'Job',
      [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'u', controller: true }],
      [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: 'u', controller: true }],
    ),
  ),
  labels: keepOr(fc.constantFrom<unknown>({ tidy: 'yes' }, { tidy: 'no' }, MISSING, 'tidy=yes', { tidy: 1 })),
  deletionTimestamp: keepOr(fc.constant('2024-01-01T00:00:00Z')),
  verb: fc.constantFrom('update', 'update', 'update', 'add', 'delete') as fc.Arbitrary<'update' | 'add' | 'delete'>,
  reference: fc.integer({ min: 0, max: 9 }).map((x) => x === 0),
  mode: fc.constantFrom('binary', 'binary', 'structured') as fc.Arbitrary<'binary' | 'structured'>,
  header: keepOr(
    fc.constantFrom('drop-id', 'drop-type', 'specversion-0.3', 'ce-namespace-other', 'ce-name-other', 'text/plain', 'type-unknown', 'gzip-claimed'),
  ),
  padKb: keepOr(fc.integer({ min: 1, max: 200 })),
});
export type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

/** The same `runs` mutations for the same seed, every time. */
export const mutations = (seed: number, runs: number): Mutation[] => fc.sample(mutation, { seed, numRuns: runs });

function set(meta: Record<string, unknown>, key: string, value: unknown): void {
  if (value === MISSING) delete meta[key];
  else meta[key] = value;
}

/** The request a mutation makes of the stored pods. */
export function build(m: Mutation, stored: Map<string, V1Pod>): { target: Target; wire: Wire } {
  const base = stored.get(WORLD[m.base]![0]);
  const pod: PodJson = base ? asEvent(base) : { apiVersion: 'v1', kind: 'Pod', metadata: { name: WORLD[m.base]![0] } };
  const meta = pod.metadata;
  if (m.name !== undefined) meta.name = m.name;
  if (m.namespace !== undefined) set(meta, 'namespace', m.namespace);
  if (m.uid !== undefined) set(meta, 'uid', typeof m.uid === 'string' && stored.has(m.uid) ? stored.get(m.uid)!.metadata!.uid : m.uid);
  if (m.resourceVersion !== undefined) set(meta, 'resourceVersion', m.resourceVersion);
  if (m.creationTimestamp !== undefined) set(meta, 'creationTimestamp', m.creationTimestamp);
  if (m.owners !== undefined) meta.ownerReferences = m.owners;
  if (m.labels !== undefined) set(meta, 'labels', m.labels);
  if (m.deletionTimestamp !== undefined) meta.deletionTimestamp = m.deletionTimestamp;
  if (m.padKb !== undefined) meta.annotations = { ...(meta.annotations as object), pad: 'x'.repeat(m.padKb * 1024) };
  const status = (pod.status ??= {});
  if (m.phase !== undefined) status.phase = m.phase;
  if (m.exit !== undefined || m.restarts !== undefined) {
    status.containerStatuses = [
      {
        name: 'main',
        image: 'registry.k8s.io/pause:3.10',
        imageID: '',
        ready: false,
        restartCount: m.restarts ?? 0,
        state: m.exit ? { terminated: m.exit } : {},
      },
    ];
  }
  if (m.target === 'sweep' || m.target === 'orphanSweep' || m.target === 'defrag') {
    const tick = pingTick(m.target);
    return {
      target: m.target,
      wire: m.header === 'type-unknown' ? { ...tick, headers: { ...tick.headers, 'ce-type': 'x.unknown' } } : m.header === 'text/plain' ? json({}) : tick,
    };
  }
  // A Job queued by Kueue, so jobDeleted reads the workers rather than answering it unread.
  const object = m.target === 'jobDeleted' ? queuedJob(pod) : pod;
  const headers: Record<string, string | undefined> = {};
  if (m.header === 'drop-id') headers['ce-id'] = undefined;
  if (m.header === 'drop-type') headers['ce-type'] = undefined;
  if (m.header === 'specversion-0.3') headers['ce-specversion'] = '0.3';
  if (m.header === 'ce-namespace-other') headers['ce-namespace'] = 'kube-system';
  if (m.header === 'ce-name-other') headers['ce-name'] = NAMES[(m.base + 1) % NAMES.length];
  if (m.header === 'text/plain') headers['content-type'] = 'text/plain';
  if (m.header === 'type-unknown') headers['ce-type'] = 'dev.knative.apiserver.resource.explode';
  if (m.header === 'gzip-claimed') headers['content-encoding'] = 'gzip';
  const verb = m.target === 'jobDeleted' ? 'delete' : m.verb;
  return { target: m.target, wire: apiServerSourceEvent(object as never, { verb, mode: m.mode, reference: m.reference, headers }) };
}

export interface FuzzFigures {
  events: number;
  batches: number;
  ms: number;
  /** Writes outside the policy (or without both preconditions), as "verb URI by user -> code". */
  wrongWrites: string[];
  /** Of those, how many the API server carried out (2xx). */
  wrongWritesDone: number;
  /** Of those, writes to something the policy does not select as stored (the rest: a selected pod without both preconditions). */
  outsidePolicy: number;
  /** The first 50 of those outside the policy, as above. */
  outsideExamples: string[];
  /** "<target> <status>" -> count; status 0 is no answer (timeout, reset). */
  statuses: Record<string, number>;
  fiveXX: number;
  /** Pods recreated after a batch (victims cleaned, or decoys wrongly deleted). */
  recreated: number;
}

/** Recreates every WORLD pod that is gone; answers the pods as stored now, by name. */
async function restore(env: Adversary, figures?: FuzzFigures): Promise<Map<string, V1Pod>> {
  const listed = (await env.core.listNamespacedPod({ namespace: env.ns })).items;
  const stored = new Map(listed.filter((p) => !p.metadata?.deletionTimestamp).map((p) => [p.metadata!.name!, p]));
  for (const [name, spec] of WORLD) {
    if (stored.has(name)) continue;
    // A pod that was wrongly evicted may still be on its way out: wait for the name to free up.
    for (let i = 0; i < 50; i++) {
      try {
        stored.set(name, await env.staticPod(name, spec));
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    if (figures) figures.recreated++;
  }
  return stored;
}

export async function runFuzz(env: Adversary, o: { seed: number; runs: number; batch?: number; onBatch?: (f: FuzzFigures) => void }): Promise<FuzzFigures> {
  const started = Date.now();
  const all = mutations(o.seed, o.runs);
  const batch = o.batch ?? 16;
  const f: FuzzFigures = {
    events: 0,
    batches: 0,
    ms: 0,
    wrongWrites: [],
    wrongWritesDone: 0,
    outsidePolicy: 0,
    outsideExamples: [],
    statuses: {},
    fiveXX: 0,
    recreated: 0,
  };
  let stored = await restore(env);
  for (let i = 0; i < all.length; i += batch) {
    const requests = all.slice(i, i + batch).map((m) => build(m, stored));
    const selected = await env.selectedNow();
    const mark = env.mark();
    const answers = await Promise.all(requests.map((r) => post(env.fn[r.target]!.url, r.wire, 30_000)));
    const writes = await env.writesSince(mark);
    const targets = new Set(requests.map((r) => r.target));
    const allowed = [...targets].map((t) => allowedFor(env, t, selected));
    const wrong = writes.filter((w) => wrongWrites([w], (x) => allowed.some((a) => a(x))).length > 0);
    f.wrongWrites.push(...wrongWrites(wrong, () => false));
    f.wrongWritesDone += wrong.filter((w) => w.code >= 200 && w.code < 300).length;
    const outside = wrong.filter((w) => !allowed.some((a) => a(w)));
    f.outsidePolicy += outside.length;
    f.outsideExamples.push(...wrongWrites(outside, () => false).slice(0, 50 - f.outsideExamples.length));
    answers.forEach((a, k) => {
      const key = `${requests[k]!.target} ${a.status}`;
      f.statuses[key] = (f.statuses[key] ?? 0) + 1;
      if (a.status >= 500 || a.status === 0) f.fiveXX++;
    });
    f.events += requests.length;
    f.batches++;
    stored = await restore(env, f);
    o.onBatch?.(f);
  }
  f.ms = Date.now() - started;
  return f;
}

/** One line of figures for logs and notes. */
export function summary(f: FuzzFigures): string {
  const codes: Record<string, number> = {};
  for (const [k, n] of Object.entries(f.statuses)) {
    const code = k.split(' ')[1]!;
    codes[code] = (codes[code] ?? 0) + n;
  }
  return `${f.events} events in ${(f.ms / 1000).toFixed(1)} s (${f.batches} batches): ${f.wrongWrites.length} wrong writes (${f.outsidePolicy} outside the policy, the rest without a resourceVersion precondition; ${f.wrongWritesDone} carried out), ${f.fiveXX} 5xx or no answer, ${f.recreated} pods recreated; status codes ${JSON.stringify(codes)}`;
}

function queuedJob(pod: { metadata?: { labels?: Record<string, string> } }): object {
  const metadata = { ...pod.metadata, labels: { ...pod.metadata?.labels, 'kueue.x-k8s.io/queue-name': 'q' } };
  return { ...pod, apiVersion: 'batch/v1', kind: 'Job', metadata };
}

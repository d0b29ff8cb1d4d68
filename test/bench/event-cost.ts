// Bench `event-cost` (issue 35; a storm since issue 45, item 6): what a removal costs on the
// event path beside the API server's parallel-delete ceiling and the sweep, side by side in one
// run on one cluster. EVENT_COST_PODS pods (20,000 by default) of which EVENT_COST_FAILED
// (5,000) are Failed and selected (event-cost/storm.ts); kwok stopped, PodGC off. Each row
// removes the storm, and the Failed pods are created again before the next (same count,
// namespaces and nodes), with the control plane left to go idle between rows:
//   ceiling                  a plain HTTP client, 32 DELETEs in flight, uid preconditions
//   sweep                    one tick of `sweep`
//   eventPath                one ApiServerSource update event per pod to `podTerminated`,
//                            EVENT_COST_IN_FLIGHT (32) in flight, the sender anonymous
//   eventPathAuthenticated   the same, the sender authenticated (SENDER_AUTH=kubernetes, a
//                            ServiceAccount token for the function's audience, the sender named
//                            in SENDER_AUTH_SUBJECTS); EVENT_COST_AUTH_ENV (JSON) adds to that
//                            environment, "{sender}" in a value standing for the sender's name
//   floor                    the same events to floor-receiver.mjs (parse, DELETE, answer; no
//                            checks, log or metrics): the least a Node receiver costs
//   ceilingAfter             the ceiling again: a row's place in the run moves it
// Each event row also gives its sender's CPU per removal (EVENT_COST_SENDER: http, plain
// node:http kept alive, the default; fetch, Node's fetch as the older tables were sent).
// EVENT_COST_ROWS=a,b: those rows only, in that order. kube-tidy is served as the image, the
// demo and `npm run serve` serve it (EVENT_COST_SERVE=bundle, the default) or by
// functions-framework, the Cloud Functions entry (framework), with the image's heap limit, its
// ServiceAccounts and Events on (the default).
// Each row: removals/s, the ratio to the ceiling, CPU per removal (the kube-tidy process's
// utime + stime from /proc; the plain client's own), its ratio to the plain client's, API
// requests per removal (apiserver_request_total deltas: every client's, but watches, leases
// and non-resource paths; with kwok stopped and bare pods nothing else sends any), and Events
// written. EVENT_COST_CPU_PROFILE=1: each kube-tidy process is profiled (--cpu-prof; the
// figures then include the profiler's cost). `npm run bench event-cost`.
import { writeFileSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { functionIdentities } from '../harness/function-identity.js';
import type { Cluster } from '../harness/index.js';
import { withCluster } from './cluster.js';
import { ceilingRow, eventRow, floorRow, sweepRow, type Row, type RowContext, type SenderIdentity } from './event-cost/rows.js';
import { serveMode, servedAs } from './event-cost/serve.js';
import { populateStorm, refillFailed } from './event-cost/storm.js';
import { SCALE_POLICY } from './scale/populate.js';
import { IDENTITY_NAMESPACES, PODGC_OFF, settle, stopKwok } from './scale/snapshot.js';
import { buildDist } from './scale/sweep-process.js';
import { bundle } from '../../infra/bundle/build.js';
import { stormTable } from './event-cost/table.js';

const ROWS = ['ceiling', 'sweep', 'eventPath', 'eventPathAuthenticated', 'floor', 'ceilingAfter'] as const;
type RowName = (typeof ROWS)[number];
const AUDIENCE = 'kube-tidy-bench/pod-terminated';
const SENDER = 'storm-sender';

const int = (name: string, fallback: number) => {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: a positive integer, not ${process.env[name]}`);
  return n;
};

function chosenRows(named = process.env.EVENT_COST_ROWS): RowName[] {
  const names = named
    ?.split(',')
    .map((n) => n.trim())
    .filter(Boolean) ?? [...ROWS];
  const unknown = names.filter((n) => !(ROWS as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`EVENT_COST_ROWS: unknown ${unknown.join(', ')} (known: ${ROWS.join(', ')})`);
  return names as RowName[];
}

/** A ServiceAccount of the bench's own, its token for the function's audience, and the environment that names it as the sender. */
async function authenticatedSender(cluster: Cluster): Promise<SenderIdentity> {
  const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
  const namespace = IDENTITY_NAMESPACES[0];
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: SENDER } } });
  const minted = await core.createNamespacedServiceAccountToken({
    name: SENDER,
    namespace,
    body: { spec: { audiences: [AUDIENCE], expirationSeconds: 3600 } },
  });
  const subject = `system:serviceaccount:${namespace}:${SENDER}`;
  // What the authenticated row adds (EVENT_COST_AUTH_ENV): whatever names a trusted source once the code has it.
  const extra = JSON.parse(process.env.EVENT_COST_AUTH_ENV ?? '{}') as Record<string, string>;
  const env = {
    SENDER_AUTH: 'kubernetes',
    SENDER_AUTH_AUDIENCE: AUDIENCE,
    SENDER_AUTH_SUBJECTS: subject,
    ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, String(v).replaceAll('{sender}', subject)])),
  };
  return { authorization: `Bearer ${minted.status!.token}`, env, subject };
}

async function storm(cluster: Cluster, rows: RowName[], size: { pods: number; failed: number }, inFlight: number) {
  const kc = cluster.kubeConfig();
  const kwokStopped = await stopKwok(cluster);
  const core = kc.makeApiClient(CoreV1Api);
  for (const name of IDENTITY_NAMESPACES) await core.createNamespace({ body: { metadata: { name } } });
  const ids = await functionIdentities(kc, cluster.kubeconfigPath, ...IDENTITY_NAMESPACES);
  const sender = rows.includes('eventPathAuthenticated') ? await authenticatedSender(cluster) : undefined;
  const { namespaces, seconds: populateSeconds } = await populateStorm(kc, size);
  const policyFile = join(mkdtempSync(join(tmpdir(), 'kube-tidy-storm-')), 'policy.json');
  writeFileSync(policyFile, JSON.stringify(SCALE_POLICY));
  const ctx: RowContext = { cluster, ids, policyFile, mode: serveMode(), inFlight };
  const run: Record<RowName, () => Promise<Row>> = {
    ceiling: () => ceilingRow(ctx),
    sweep: () => sweepRow(ctx),
    eventPath: () => eventRow(ctx),
    eventPathAuthenticated: () => eventRow(ctx, sender),
    floor: () => floorRow(ctx),
    ceilingAfter: () => ceilingRow(ctx),
  };
  const out: Partial<Record<RowName, Row & { settleSeconds: number }>> = {};
  for (const [i, name] of rows.entries()) {
    if (i > 0) await refillFailed(kc, namespaces, size.failed, i);
    const settleSeconds = await settle(cluster);
    out[name] = { ...(await run[name]()), settleSeconds };
    console.log(`[event-cost] ${name} ${JSON.stringify(out[name])}`);
  }
  return { kwokStopped, populateSeconds, rows: out };
}

export async function runEventCostBench(): Promise<object> {
  const size = { pods: int('EVENT_COST_PODS', 20_000), failed: int('EVENT_COST_FAILED', 5_000) };
  if (size.failed > size.pods) throw new Error('EVENT_COST_FAILED: at most EVENT_COST_PODS');
  const inFlight = int('EVENT_COST_IN_FLIGHT', 32);
  const rows = chosenRows();
  const mode = serveMode();
  // The code measured is the tree as it is now.
  if (mode === 'framework') buildDist();
  else await bundle();
  const loadBefore = loadavg().map((x) => Math.round(x * 100) / 100);
  const result = await withCluster('bench-event-cost', 1, (cluster) => storm(cluster, rows, size, inFlight), { controllerManagerArgs: PODGC_OFF });
  const table = stormTable(result.rows, size, inFlight);
  for (const line of table) console.log(line);
  return { served: servedAs(mode), ...size, inFlight, loadAverageAtStart: loadBefore, ...result, table };
}

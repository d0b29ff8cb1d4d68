// A pass's `requests` and `brakes.ledgerRequests` are its own when two passes run at once in one
// process, sharing its clients and its one Brakes object (the ledger): counted where requests
// leave the client (kube/request-tally.ts), checked here against every request the process's
// client sent (its onRequest hook), attributed by namespace. A counter kept on the Brakes object
// and read before and after each pass counts the other pass's ledger requests too.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupParts, runPass, type CleanupHandle, type PassSummary } from '../../../shared/cleanup/index.js';
import { kubeClients, type KubeClients } from '../../../shared/kube/clients.js';
import { startRuntime, type Runtime } from '../../../shared/runtime/runtime.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { failedPolicy, makePods, podNames, range, windowWithRoom } from './helpers.js';
import { before } from '../../fixtures/client-spy.js';

const a = testNamespace('pass-requests-a');
const b = testNamespace('pass-requests-b');
/** The ledger's namespace, shared by both passes as it is by every pass of a process. */
const home = testNamespace('pass-requests-home');

let rt: Runtime | undefined;
let clients: KubeClients | undefined;

beforeAll(async () => {
  await makePods(a.name, range('a', 5), { exitCode: 137 });
  await makePods(b.name, range('b', 1), { exitCode: 137 });
}, 120_000);
afterAll(() => {
  rt?.brakes().close();
  clients?.close();
});

describe('two passes at once in one process', () => {
  it("each reports the requests it sent, its ledger requests included, and none of the other's", async () => {
    const { top } = windowWithRoom(60_000);
    // A budget that never binds: every removal takes a unit from the ledger, so both passes use it.
    const policy = failedPolicy([a.name, b.name], { maxNoOfPodsToEvictTotal: 1000, ...top });
    const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-pass-requests-')), 'policy.json');
    writeFileSync(file, JSON.stringify(policy));
    const sent: string[] = [];
    const kubeConfig = sharedCluster().kubeConfig();
    clients = kubeClients(kubeConfig, { onRequest: (_method, url) => sent.push(new URL(url).pathname) });
    rt = await startRuntime(
      { POLICY_FILE: file, KUBECONFIG: sharedCluster().kubeconfigPath, BRAKES_NAMESPACE: home.name, SWEEP_PAGE_SIZE: '2' },
      { log: pino({ level: 'silent' }), kubeConfig, clients },
    );
    const handle = cleanupParts(rt).handle;
    // Both passes hold their first LIST until the other reached it too: both are under way (their
    // brakes set up) before either reads or writes the ledger, so neither can finish before the
    // other's ledger requests begin.
    let arrived = 0;
    let release!: () => void;
    const bothListing = new Promise<void>((resolve) => (release = resolve));
    const podReads = before(clients.podReads, 'listNamespacedPod', async () => {
      if (++arrived === 2) release();
      await bothListing;
    });
    const h: CleanupHandle = { ...handle, reader: { ...handle.reader, podReads } };
    const pass = (namespace: string) => runPass(h, { policy: h.policy(), namespaces: [namespace], dryRun: false, budgetMs: 60_000 });

    const [pa, pb] = await Promise.all([pass(a.name), pass(b.name)]);

    expect(pa.outcomes).toEqual({ deleted: 5 });
    expect(pb.outcomes).toEqual({ deleted: 1 });
    expect(await podNames(a.name)).toEqual([]);
    const inNamespace = (ns: string) => sent.filter((p) => p.includes(`/namespaces/${ns}/`)).length;
    // a: 3 LIST pages of at most 2, 5 DELETEs, 5 Events; b: 1 page, 1 DELETE, 1 Event. Nothing was throttled.
    expect([pa.throttled, pb.throttled]).toEqual([0, 0]);
    expect([inNamespace(a.name), inNamespace(b.name)]).toEqual([13, 3]);
    const ledger = (s: PassSummary) => s.brakes?.ledgerRequests ?? 0;
    expect(pa.requests).toBe(13 + ledger(pa));
    expect(pb.requests).toBe(3 + ledger(pb));
    // Everything else the process sent was the ledger's (reads, and writes that created and then
    // updated its ConfigMap), each counted by exactly one pass: at least the first read and the
    // first reservation.
    const ledgerSent = sent.length - inNamespace(a.name) - inNamespace(b.name);
    expect(sent.filter((p) => p.startsWith(`/api/v1/namespaces/${home.name}/configmaps`))).toHaveLength(ledgerSent);
    expect(ledgerSent).toBeGreaterThanOrEqual(2);
    expect(ledger(pa) + ledger(pb)).toBe(ledgerSent);
    expect(pa.requests + pb.requests).toBe(sent.length);
  }, 120_000);
});

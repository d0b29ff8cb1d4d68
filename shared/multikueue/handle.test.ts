import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { Notifier } from '../notify/notifier.js';
import type { KubeClients } from '../kube/clients.js';
import type { ClusterWriter, WriterClients } from '../kube/writer.js';
import { startRuntime } from '../runtime/runtime.js';
import { readMultiKueueConfig } from './config.js';
import { multiKueueHandle, type MultiKueueHandle } from './handle.js';
import { multiKueuePartsOf } from './index.js';
import { offlineKubeconfig } from '../../test/fixtures/offline.js';
import { MetricsRecorder } from '../metrics/recorder.js';

// MultiKueue sees the process only through its handle: its own configuration, the process's
// request timeout (in ms) and dry run, the manager's clients, the writer over a worker's
// clients, the clock and the logger. No policy: its targets start without one.

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-multikueue-handle-'));
// Parsed, never dialled: nothing here makes a request.
const kubeconfig = offlineKubeconfig(dir);
const log = pino({ level: 'silent' });

const runtime = (env: Record<string, string>) => startRuntime({ KUBECONFIG: kubeconfig, ...env }, { log, now: () => 1234 }, { needsPolicy: false });

describe("MultiKueue's handle, from the runtime", () => {
  it("carries its configuration, and the process's request timeout in ms and dry run", async () => {
    const h = multiKueueHandle(await runtime({ REQUEST_TIMEOUT_SECONDS: '7', DRY_RUN: 'true', MULTIKUEUE_SWEEP_LIMIT: '3', KUEUE_NAMESPACE: 'kq' }));
    expect(h.settings).toEqual({ requestTimeoutMs: 7000, dryRun: true });
    expect(h.config.MULTIKUEUE_SWEEP_LIMIT).toBe(3);
    expect(h.config.KUEUE_NAMESPACE).toBe('kq');
    expect(h.now()).toBe(1234);
  });

  it("reads the manager through the runtime's clients, or through clients of its own that count requests", async () => {
    const rt = await runtime({});
    expect(multiKueueHandle(rt).manager).toBe(rt.clients);
    const onRequest = () => {};
    const counted = multiKueueHandle(rt, { onRequest });
    expect(counted.settings.onRequest).toBe(onRequest);
    expect(counted.manager).not.toBe(rt.clients);
    // Built once: every request of the process goes through the same counted clients.
    expect(counted.manager).toBe(counted.manager);
  });

  it("writes to a worker through that worker's clients, with the process's dry run and protected namespaces", async () => {
    const rt = await runtime({ DRY_RUN: 'true', PROTECTED_NAMESPACES: 'ops' });
    const worker = { core: {}, events: {}, custom: {}, podWrites: {} } as unknown as WriterClients;
    const w = multiKueueHandle(rt).writer(worker);
    expect(w.dryRun).toBe(true);
    expect(w.options.protectedNamespaces).toEqual(['ops']);
  });
});

describe("MultiKueue's parts, from a handle alone", () => {
  const manager = {} as MultiKueueHandle['manager'];
  const handle = (dryRun: boolean, seen: unknown[]): MultiKueueHandle => ({
    config: readMultiKueueConfig({ MULTIKUEUE_SWEEP_LIMIT: '5', MULTIKUEUE_ORIGIN: 'mk' }),
    settings: { requestTimeoutMs: 1000, dryRun },
    manager,
    writer: (clients) => (seen.push(clients), { dryRun } as unknown as ClusterWriter),
    now: () => 0,
    log,
    notifier: Notifier.off(),
    metrics: MetricsRecorder.off(),
  });

  it("sweep with the handle's dry run and the configured limits", () => {
    expect(multiKueuePartsOf(handle(true, [])).sweepOptions()).toMatchObject({ dryRun: true, limit: 5, origin: 'mk' });
    expect(multiKueuePartsOf(handle(false, [])).sweepOptions().dryRun).toBe(false);
  });

  it("write to a worker only through the handle's writer with that worker's clients, and not at all to a worker without any", () => {
    const seen: unknown[] = [];
    const mk = multiKueuePartsOf(handle(false, seen));
    const api = {} as KubeClients;
    expect(mk.writer({ name: 'w1', api })).toBeDefined();
    expect(mk.writer({ name: 'w2', error: { message: 'no credentials', transient: false } })).toBeUndefined();
    expect(seen).toEqual([api]);
    expect(seen[0]).toBe(api);
    expect(mk.manager).toBe(manager);
    expect(mk.log).toBe(log);
  });
});

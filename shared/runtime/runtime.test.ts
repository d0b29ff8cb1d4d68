import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.js';
import { startRuntime } from './runtime.js';
import { fixedPolicySource } from './policy-source.js';
import { loadPolicyText } from '../policy/load.js';
import { metricsExposition } from '../metrics/exposition.js';
import { offlineKubeconfig, offlinePolicy } from '../../test/fixtures/offline.js';

// Starting the runtime: what is refused at start, and when the Kubernetes client is loaded.

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-runtime-'));
const policy = offlinePolicy(dir);
// Parsed, never dialled: nothing here makes a request.
const kubeconfig = offlineKubeconfig(dir);
const silent = { log: pino({ level: 'silent' }) };

describe('startRuntime', () => {
  it.each([
    { name: 'a KUBECONFIG naming no file', env: { POLICY_FILE: policy, KUBECONFIG: join(dir, 'nope') }, problem: 'KUBECONFIG: no such file' },
    { name: 'no KUBECONFIG outside a cluster', env: { POLICY_FILE: policy }, problem: 'not running in a cluster' },
  ])('refuses $name at start, even when the client would load later', async ({ env, problem }) => {
    const started = startRuntime(env, silent, { lazyKube: true });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(problem);
  });

  it('with lazyKube, loads the client only when asked', async () => {
    const rt = await startRuntime({ POLICY_FILE: policy, KUBECONFIG: kubeconfig }, silent, { lazyKube: true });
    expect(() => rt.clients).toThrow('await rt.kubeReady() first');
    await rt.kubeReady();
    expect(rt.kubeConfig.getCurrentCluster()?.server).toBe('https://127.0.0.1:1');
    expect(typeof rt.clients.core.readNamespacedPod).toBe('function');
  });

  it('without lazyKube, the client is ready when the runtime is', async () => {
    const rt = await startRuntime({ POLICY_FILE: policy, KUBECONFIG: kubeconfig }, silent);
    expect(rt.kubeConfig.getCurrentCluster()?.server).toBe('https://127.0.0.1:1');
  });

  it('given its clients (tests, benches), still has the writer ready: every write goes through it', async () => {
    const k = await import('../kube/index.js');
    const kubeConfig = k.loadKubeConfig({ kubeconfig });
    const rt = await startRuntime({ POLICY_FILE: policy, KUBECONFIG: kubeconfig }, { ...silent, kubeConfig, clients: k.kubeClients(kubeConfig) });
    expect(rt.writer().dryRun).toBe(false);
    expect(rt.writer({ dryRun: true }).dryRun).toBe(true);
  });

  it('given a policy source (the CLI reads its own), its writer takes that policy’s grace period, without a policy in the environment', async () => {
    const k = await import('../kube/index.js');
    const kubeConfig = k.loadKubeConfig({ kubeconfig });
    const loaded = loadPolicyText(
      'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\ngracePeriodSeconds: 7\nprofiles:\n- name: p\n  plugins:\n    deschedule:\n      enabled: [RemoveFailedPods]\n',
    );
    const rt = await startRuntime(
      {},
      { ...silent, kubeConfig, clients: k.kubeClients(kubeConfig), policy: fixedPolicySource(loaded, 'test') },
      { needsPolicy: false },
    );
    expect(rt.writer().options.gracePeriodSeconds).toBe(7);
  });

  it('DRY_RUN cannot be undone by a caller: the writer stays dry', async () => {
    const rt = await startRuntime({ POLICY_FILE: policy, KUBECONFIG: kubeconfig, DRY_RUN: 'true' }, silent);
    expect(rt.writer({ dryRun: false }).dryRun).toBe(true);
  });

  it("one Event series per runtime, shared by its writers (never a module's); none where nothing is written or Events are off", async () => {
    const rt = await startRuntime({ POLICY_FILE: policy, KUBECONFIG: kubeconfig }, silent);
    const series = rt.writer().options.series;
    expect(series).toBeDefined();
    expect(rt.writer().options.series).toBe(series);
    const other = await startRuntime({ POLICY_FILE: policy, KUBECONFIG: kubeconfig }, silent);
    expect(other.writer().options.series).not.toBe(series);
    // A dry run's writer (DRY_RUN, or a caller's dry run), and one over other clients (a worker cluster's), count into none.
    expect(rt.writer({ dryRun: true }).options.series).toBeUndefined();
    expect(rt.writer({ clients: rt.clients }).options.series).toBeUndefined();
    for (const env of [{ DRY_RUN: 'true' }, { RECORD_EVENTS: 'false' }, { EVENT_SERIES_WINDOW_SECONDS: '0' }]) {
      const off = await startRuntime({ POLICY_FILE: policy, KUBECONFIG: kubeconfig, ...env }, silent);
      expect(off.writer().options.series, JSON.stringify(env)).toBeUndefined();
      expect(await off.drainEvents(0)).toEqual({ drained: true });
    }
  });

  it('builds what the process keeps across requests once, from the environment its host gave it: the outbox, its name, where refusals are logged, its metrics recorder', async () => {
    const rt = await startRuntime({ POLICY_FILE: policy, KUBECONFIG: kubeconfig, EVENTS_SINK: 'http://127.0.0.1:9/', HOSTNAME: 'kube-tidy-7f9c' }, silent);
    expect(rt.notifier.on).toBe(true);
    expect(rt.instance).toBe('kube-tidy-7f9c');
    expect(rt.writer().options.instance).toBe('kube-tidy-7f9c');
    // One per process: every writer counts and samples refusals in the same place; every Brakes tells a deferral once.
    expect(rt.writer().refusals).toBe(rt.writer({ dryRun: true }).refusals);
    expect(rt.brakes().told).toBe(rt.brakes({ dryRun: true }).told);
    expect(rt.brakes().holder.startsWith('kube-tidy-7f9c-')).toBe(true);
    // One recorder: the brakes (a plan's too) record where the process's /metrics and push read.
    expect(rt.brakes().metrics).toBe(rt.metrics);
    expect(rt.brakes({ dryRun: true }).metrics).toBe(rt.metrics);
    rt.writer().refusals.note('delete', 'forbidden', 'delete pod ml/a');
    expect((await metricsExposition(rt.metrics)).body).toMatch(/^kube_tidy_writes_refused_total\{reason="forbidden",verb="delete"\} 1$/m);
    // A second runtime in the same process shares none of it.
    const other = await startRuntime({ POLICY_FILE: policy, KUBECONFIG: kubeconfig }, silent);
    expect(other.notifier.on).toBe(false);
    expect(other.writer().refusals).not.toBe(rt.writer().refusals);
    expect(other.brakes().told).not.toBe(rt.brakes().told);
    expect(other.metrics).not.toBe(rt.metrics);
    expect((await metricsExposition(other.metrics)).body).not.toMatch(/^kube_tidy_writes_refused_total\{/m);
    for (const r of [rt, other]) r.brakes().close();
  });
});

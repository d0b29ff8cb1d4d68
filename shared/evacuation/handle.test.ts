import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { policyDoc } from '../../test/fixtures/policy.js';
import { Notifier } from '../notify/notifier.js';
import type { KubeClients } from '../kube/clients.js';
import type { Admission } from '../kube/admission.js';
import type { ClusterWriter } from '../kube/writer.js';
import { loadPolicy } from '../policy/load.js';
import { fixedPolicySource } from '../runtime/policy-source.js';
import { startRuntime } from '../runtime/runtime.js';
import { readEvacuationConfig } from './config.js';
import { requesterName } from './core/eviction-request.js';
import { evacuationHandle, type EvacuationHandle } from './handle.js';
import { evacuationPartsOf } from './index.js';
import { offlineKubeconfig } from '../../test/fixtures/offline.js';
import { MetricsRecorder } from '../metrics/recorder.js';

// Evacuation sees the process only through its handle: its configuration in ms, the process's
// dry run and protected namespaces in its writer, the runtime's clock, and pod cleanup's view
// for a strategy's look. The parts are built from a handle alone.

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-evacuation-handle-'));
// Parsed, never dialled: nothing here makes a request.
const kubeconfig = offlineKubeconfig(dir);
const log = pino({ level: 'silent' });
const policy = fixedPolicySource(loadPolicy(policyDoc([{ name: 'RemoveFailedPods', args: {} }])), 'test');

const runtime = (env: Record<string, string>) =>
  startRuntime({ KUBECONFIG: kubeconfig, ...env }, { log, policy, now: () => 1234 }, { needsPolicy: false, lazyKube: true });

describe("evacuation's handle, from the runtime", () => {
  it('carries its own configuration, the tick budget in ms from EVACUATION_TICK_BUDGET_SECONDS', async () => {
    const rt = await runtime({ EVACUATION_TICK_BUDGET_SECONDS: '12', EVACUATION_MAX_PER_NODE: '4', SWEEP_TIME_BUDGET_SECONDS: '30' });
    const h = evacuationHandle(rt);
    expect(h.config.tickBudgetMs).toBe(12_000);
    expect(h.config.limits.perNode).toBe(4);
  });

  it("keeps the slots in the brakes' ledger: BRAKES_NAMESPACE, else KUBE_TIDY_NAMESPACE, wherever EVACUATION_NAMESPACE (the old store's) is", async () => {
    expect(evacuationHandle(await runtime({ BRAKES_NAMESPACE: 'ledger', EVACUATION_NAMESPACE: 'old' })).ledgerNamespace).toBe('ledger');
    expect(evacuationHandle(await runtime({ KUBE_TIDY_NAMESPACE: 'ops' })).ledgerNamespace).toBe('ops');
  });

  it("keeps a deployment's tuned sweep budget as its tick budget when it has none of its own", async () => {
    const h = evacuationHandle(await runtime({ SWEEP_TIME_BUDGET_SECONDS: '30' }));
    expect(h.config.tickBudgetMs).toBe(30_000);
  });

  it("writes with the process's dry run and protected namespaces, and keeps its clock", async () => {
    const rt = await runtime({ DRY_RUN: 'true', PROTECTED_NAMESPACES: 'ops,kube-system' });
    await rt.kubeReady();
    const h = evacuationHandle(rt);
    expect(h.writer().dryRun).toBe(true);
    expect(h.writer().options.protectedNamespaces).toEqual(['ops', 'kube-system']);
    expect(h.now()).toBe(1234);
    expect(h.reader.core).toBe(rt.clients.core);
    expect(h.reader.custom).toBe(rt.clients.custom);
  });

  it("gives pod cleanup's one-pod look the process's policy and paging, with no Events of its own", async () => {
    const rt = await runtime({ SWEEP_PAGE_SIZE: '42', DRY_RUN: 'true', PROTECTED_NAMESPACES: 'ops' });
    const { cleanup } = evacuationHandle(rt);
    expect(cleanup.settings).toMatchObject({ pageSize: 42, eventsPerPass: 0, dryRun: true, protectedNamespaces: ['ops'] });
    expect(cleanup.policy()).toBe(policy.current().policy);
    expect(cleanup.now()).toBe(1234);
  });
});

describe("evacuation's parts, from a handle alone", () => {
  const core = { name: 'core' } as unknown as KubeClients['core'];
  const custom = { name: 'custom' } as unknown as KubeClients['custom'];
  const writer = { dryRun: false } as unknown as ClusterWriter;
  const port = { name: 'admission' } as unknown as Admission;
  const handle = (env: NodeJS.ProcessEnv, served: boolean): EvacuationHandle & { asked: number } => {
    const h = {
      asked: 0,
      config: readEvacuationConfig(env),
      ledgerNamespace: 'brakes-home',
      reader: { core, custom },
      evictionRequestsServed: async () => (h.asked++, served),
      writer: () => writer,
      admission: () => port,
      cleanup: undefined as unknown as EvacuationHandle['cleanup'],
      now: () => 99,
      log,
      notifier: Notifier.off(),
      metrics: MetricsRecorder.off(),
    };
    return h;
  };

  it("works with the handle's reader, writer, clock and configuration", async () => {
    const deps = await evacuationPartsOf(handle({ EVACUATION_TICK_BUDGET_SECONDS: '7' }, false)).deps();
    expect(deps.core).toBe(core);
    expect(deps.custom).toBe(custom);
    expect(deps.writer).toBe(writer);
    expect(deps.now()).toBe(99);
    expect(deps.config.tickBudgetMs).toBe(7000);
    // The slots are kept in the brakes' ledger, wherever the handle says it is.
    expect(deps.slotStore.namespace).toBe('brakes-home');
    expect(deps.evictionRequests).toBeUndefined();
    // Not charged to the policy's limits unless the operator says so.
    expect(deps.admission).toBeUndefined();
  });

  it("asks the handle's admission port with EVACUATION_CHARGE_BUDGETS=true", async () => {
    expect((await evacuationPartsOf(handle({ EVACUATION_CHARGE_BUDGETS: 'true' }, false)).deps()).admission).toBe(port);
  });

  it('asks through EvictionRequests when the handle says the API is served, and never asks with EVACUATION_EVICTION_REQUESTS=off', async () => {
    const served = handle({}, true);
    expect((await evacuationPartsOf(served).deps()).evictionRequests).toEqual({ requester: requesterName('evacuation') });
    expect(served.asked).toBe(1);
    const off = handle({ EVACUATION_EVICTION_REQUESTS: 'off' }, true);
    expect((await evacuationPartsOf(off).deps()).evictionRequests).toBeUndefined();
    expect(off.asked).toBe(0);
  });
});

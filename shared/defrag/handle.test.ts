import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { policyDoc } from '../../test/fixtures/policy.js';
import { Notifier } from '../notify/notifier.js';
import { loadPolicy } from '../policy/load.js';
import { fixedPolicySource } from '../runtime/policy-source.js';
import { startRuntime } from '../runtime/runtime.js';
import { defragHandle, type DefragHandle } from './handle.js';
import { defragPartsOf } from './index.js';
import { offlineKubeconfig } from '../../test/fixtures/offline.js';
import { MetricsRecorder } from '../metrics/recorder.js';

// Defragmentation sees the process only through its handle: DEFRAG_* in ms and counts, the
// process's dry run and protected namespaces, its policy and clock, and the writer.

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-defrag-handle-'));
// Parsed, never dialled: nothing here makes a request.
const kubeconfig = offlineKubeconfig(dir);
const log = pino({ level: 'silent' });
const policy = fixedPolicySource(loadPolicy(policyDoc([{ name: 'RemoveFailedPods', args: {} }], { top: { gracePeriodSeconds: 9 } })), 'test');

const runtime = (env: Record<string, string>) => startRuntime({ KUBECONFIG: kubeconfig, ...env }, { log, policy, now: () => 1234 }, { needsPolicy: false });

describe("defragmentation's handle, from the runtime", () => {
  it('carries DEFRAG_* in the units the step wants', async () => {
    const h = defragHandle(await runtime({ DEFRAG_SETTLE_TIMEOUT_SECONDS: '45', DEFRAG_PAGE_SIZE: '100' }));
    expect(h.config).toEqual({ settleTimeoutMs: 45_000, pageSize: 100 });
  });

  it("carries the process's dry run and protected namespaces, and its writer keeps them", async () => {
    const h = defragHandle(await runtime({ DRY_RUN: 'true', PROTECTED_NAMESPACES: 'ops,kube-system' }));
    expect(h.settings).toEqual({ dryRun: true, protectedNamespaces: ['ops', 'kube-system'] });
    expect(h.writer({ dryRun: false }).dryRun).toBe(true);
    expect(h.writer({ dryRun: false }).options.protectedNamespaces).toEqual(['ops', 'kube-system']);
    const wet = defragHandle(await runtime({}));
    expect(wet.settings.dryRun).toBe(false);
    expect(wet.writer({ dryRun: false }).dryRun).toBe(false);
    expect(wet.writer({ dryRun: true }).dryRun).toBe(true);
  });

  it("reads the runtime's policy (its grace period in the writer), clients and clock", async () => {
    const rt = await runtime({});
    const h = defragHandle(rt);
    expect(h.policy()).toBe(policy.current().policy);
    expect(h.writer({ dryRun: true }).options.gracePeriodSeconds).toBe(9);
    expect(h.reader.core).toBe(rt.clients.core);
    expect(h.reader.policy).toBe(rt.clients.policy);
    expect(h.now()).toBe(1234);
  });
});

describe("defragmentation's parts, from a handle alone", () => {
  it('say whether every step only plans, as the handle says', () => {
    const h = (dryRun: boolean): DefragHandle => ({
      config: { settleTimeoutMs: 1, pageSize: 1 },
      settings: { dryRun, protectedNamespaces: [] },
      policy: () => policy.current().policy,
      reader: {} as DefragHandle['reader'],
      writer: () => {
        throw new Error('not written here');
      },
      admission: () => {
        throw new Error('not admitted here');
      },
      now: () => 0,
      log: pino({ level: 'silent' }),
      notifier: Notifier.off(),
      metrics: MetricsRecorder.off(),
    });
    expect(defragPartsOf(h(true)).dryRun).toBe(true);
    expect(defragPartsOf(h(false)).dryRun).toBe(false);
    expect(defragPartsOf(h(false)).config).toEqual({ settleTimeoutMs: 1, pageSize: 1 });
  });
});

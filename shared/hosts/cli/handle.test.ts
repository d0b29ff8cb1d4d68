import { afterEach, describe, expect, it, vi } from 'vitest';
import { Notifier } from '../../notify/notifier.js';
import type { KubeClients } from '../../kube/clients.js';
import { createLogger } from '../../log.js';
import { loadPolicy } from '../../policy/load.js';
import { policyDoc } from '../../../test/fixtures/policy.js';
import { cliHandle, cliObjectsHandle } from './handle.js';
import { parse } from './live.js';
import { MetricsRecorder } from '../../metrics/recorder.js';

// The CLI's handle comes from its flags alone: the settings a deployed process reads from its
// environment (SWEEP_PAGE_SIZE, DRY_RUN, PROTECTED_NAMESPACES) are set here to other values,
// and must not leak in.

const { policy } = loadPolicy(policyDoc([{ name: 'RemoveFailedPods', args: {} }]));
const clients = { core: {}, policy: {}, scheduling: {}, throttle: {}, events: {}, custom: {} } as unknown as KubeClients;
const log = createLogger({ destination: { write: () => {} }, level: 'silent' });

function handleFor(mode: 'plan' | 'run', ...flags: string[]) {
  const o = parse(mode, ['--kubeconfig', '/nonexistent', ...flags], false);
  if (o === 'help') throw new Error('unexpected help');
  return cliHandle({
    clients,
    policy,
    dryRun: mode === 'plan',
    chunkSize: o.chunkSize,
    protectedNamespaces: o.protectedNamespaces,
    ledgerNamespace: 'ops',
    budgetMs: 1000,
    log,
    notifier: Notifier.off(),
    metrics: MetricsRecorder.off(),
  });
}

afterEach(() => vi.unstubAllEnvs());

describe("the CLI's cleanup handle", () => {
  it('carries --chunk-size as the page size and a plan as a dry run, whatever the environment says', () => {
    vi.stubEnv('SWEEP_PAGE_SIZE', '999');
    vi.stubEnv('DRY_RUN', 'false');
    const h = handleFor('plan', '--chunk-size', '7');
    expect(h.settings.pageSize).toBe(7);
    expect(h.settings.dryRun).toBe(true);
    expect(h.writer().dryRun).toBe(true);
    expect(h.writer({ dryRun: false }).dryRun).toBe(true);
  });

  it('a run writes for real even with DRY_RUN in the environment, unless the pass asks for a dry run', () => {
    vi.stubEnv('DRY_RUN', 'true');
    const h = handleFor('run', '--yes');
    expect(h.settings.pageSize).toBe(500);
    expect(h.settings.dryRun).toBe(false);
    expect(h.writer().dryRun).toBe(false);
    expect(h.writer({ dryRun: true }).dryRun).toBe(true);
  });

  it('protects the namespaces the flags name, not PROTECTED_NAMESPACES', () => {
    vi.stubEnv('PROTECTED_NAMESPACES', 'from-env');
    const h = handleFor('plan', '--protected-namespaces', 'extra,-kube-system');
    expect(h.settings.protectedNamespaces).toContain('extra');
    expect(h.settings.protectedNamespaces).not.toContain('kube-system');
    expect(h.settings.protectedNamespaces).not.toContain('from-env');
    expect(h.writer().options.protectedNamespaces).toEqual(h.settings.protectedNamespaces);
  });

  it("its object rules' handle protects the same namespaces and names them as the person set them: --protected-namespaces", () => {
    const h = handleFor('plan', '--protected-namespaces', 'extra');
    const objects = cliObjectsHandle(h, clients);
    expect(objects.settings.protectedNamespaces).toEqual(h.settings.protectedNamespaces);
    expect(objects.settings.protectedNamespacesFrom).toBe('--protected-namespaces');
  });

  it('keeps one brakes for the command, and a separate dry one when a run asks for a dry run', () => {
    const h = handleFor('run', '--yes');
    expect(h.brakes()).toBe(h.brakes());
    expect(h.brakes({ dryRun: true })).not.toBe(h.brakes());
  });

  it('charges the ledger in the namespace the command chose, whatever BRAKES_NAMESPACE says', () => {
    vi.stubEnv('BRAKES_NAMESPACE', 'elsewhere');
    const h = handleFor('run', '--yes');
    expect(h.brakes().namespace).toBe('ops');
    expect(h.brakes({ dryRun: true }).namespace).toBe('ops');
  });
});

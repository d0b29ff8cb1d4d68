// `kube-tidy descheduler [the descheduler's flags]` (and /bin/descheduler in the image): the
// descheduler's process, so its Deployment, CronJob or Helm chart runs kube-tidy by changing
// only the image (docs/migrating-from-descheduler.md). The policy file is a DeschedulerPolicy
// as the descheduler reads it; cycles run every --descheduling-interval, the first at once and
// non-sliding (the next starts an interval after the last started), or once and exit with 0;
// with --leader-elect only the holder of the Lease kube-system/descheduler runs them (not in a
// dry run: the descheduler then warns and runs without one). The secure port serves /healthz
// and /metrics with the descheduler's metric names beside kube-tidy's. What its ServiceAccount
// may do decides how it removes terminal pods and where the limits hold (access.ts), said once.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { brakeSetOf, hasBrakes } from '../../brakes/io/brakes.js';
import { BRAKES_NAME } from '../../brakes/io/store.js';
import { setLongTimeout, type LongTimeout } from '../../config/long-timeout.js';
import { kubeClients } from '../../kube/clients.js';
import { loadKubeConfig } from '../../kube/config.js';
import { leaseClient } from '../../kube/lease.js';
import { createLogger, type Logger } from '../../log.js';
import { MetricsRecorder } from '../../metrics/recorder.js';
import { Notifier } from '../../notify/notifier.js';
import { DEFAULT_BRAKES } from '../../policy/brakes-schema.js';
import type { Policy } from '../../policy/policy.js';
import { DEFAULT_PROTECTED_NAMESPACES } from '../../selection/decide.js';
import { cliHandle } from '../cli/handle.js';
import { chooseLedger } from '../cli/ledger.js';
import { loadPolicyFile } from '../cli/input.js';
import { fencedClients } from '../standalone/fence.js';
import { startElector, type Elector } from '../standalone/leader.js';
import { probeAccess, type Access } from './access.js';
import { runCycle } from './cycle.js';
import type { DeschedulerFlags } from './flags.js';
import { startSecureServing } from './serving.js';

/** kube-tidy's version and the descheduler's whose command and policies it follows (descheduler_build_info). */
const BUILD = { AppVersion: '0.1', DeschedulerVersion: 'kube-tidy-v0.1.0 (descheduler v0.36.0 compatible)', GitBranch: '', GitSha1: '' };
/** client-go's defaults for a ClientConnection the descheduler leaves at 0. */
const CLIENT_GO_QPS = 5;
const CLIENT_GO_BURST = 10;
/** A cycle's time budget when it runs once: long enough for a large cluster, never unbounded. */
const ONCE_BUDGET_MS = 60 * 60_000;

export interface DeschedulerIo {
  err: (s: string) => void;
  metrics?: MetricsRecorder;
  /** Where a running command is told to stop (SIGTERM/SIGINT in the program; a test's own). */
  stopSignal?: AbortSignal;
}

/** The policy the ledger would hold when there is none: no limits there, the pass keeps `policy`'s per cycle. */
const withoutLedger = (policy: Policy): Policy => ({ ...policy, limits: {}, brakes: { ...(policy.brakes ?? DEFAULT_BRAKES), rates: [], abort: [] } });

interface Modes {
  access: Access;
  ledgerNamespace: string;
  /** The policy the ledger holds (cli/handle.ts ledgerPolicy); undefined: the policy itself. */
  ledgerPolicy: Policy | undefined;
}

/** Where the ledger is and what this account may do; throws when a kubeTidy.brakes setting could not be held. */
async function modesOf(f: { policy: Policy; kc: ReturnType<typeof loadKubeConfig>; core: Parameters<typeof chooseLedger>[0]; log: Logger }): Promise<Modes> {
  const ledgerNamespace = process.env.BRAKES_NAMESPACE || (await chooseLedger(f.core, {})).namespace;
  const access = await probeAccess(f.kc, ledgerNamespace);
  const limits = hasBrakes(brakeSetOf(f.policy));
  const kubeTidyBrakes = (f.policy.brakes?.rates.length ?? 0) + (f.policy.brakes?.abort.length ?? 0) > 0;
  if (limits && !access.ledger && kubeTidyBrakes) {
    throw new Error(
      `kubeTidy.brakes holds across cycles in the ledger ${ledgerNamespace}/${BRAKES_NAME}, which this account may not read and write: grant get, create and update on configmaps there (or set BRAKES_NAMESPACE), or drop kubeTidy.brakes`,
    );
  }
  const ledger = !limits
    ? 'none: the policy sets no limit'
    : access.ledger
      ? `the shared ledger ${ledgerNamespace}/${BRAKES_NAME}, across cycles, events and instances`
      : `per cycle, as the descheduler (this account may not read and write ConfigMap ${ledgerNamespace}/${BRAKES_NAME}: no shared ledger)`;
  f.log.info(
    { terminalPods: access.deletePods ? 'delete' : 'Eviction API (this account may not delete pods)', limits: ledger },
    'kube-tidy descheduler: how it removes pods and holds limits',
  );
  return { access, ledgerNamespace, ledgerPolicy: limits && !access.ledger ? withoutLedger(f.policy) : undefined };
}

/** Runs until stopped (or one cycle with interval 0); the exit code. */
export async function runDescheduler(flags: DeschedulerFlags, io: DeschedulerIo): Promise<number> {
  const log = createLogger({ name: 'descheduler', level: flags.verbosity >= 4 ? 'debug' : 'info', destination: { write: io.err } });
  if (flags.ignored.length) log.warn({ flags: flags.ignored }, 'accepted and not acted on by kube-tidy');
  const { policy, warnings } = loadPolicyFile(flags.policyConfigFile, flags.allowUnsupported);
  for (const w of warnings) log.warn({ file: flags.policyConfigFile }, w);
  // The drop-in cleans pods, as the descheduler does; the object rules run in kube-tidy's own hosts (docs/objects.md).
  if (policy.objects?.length)
    log.warn(
      { rules: policy.objects.map((r) => r.name) },
      'kubeTidy.objects: not run by the descheduler drop-in (the sweep, invoke, the CLI and the standalone program run them)',
    );
  const metrics = io.metrics ?? new MetricsRecorder(process.env);
  metrics.deschedulerNames = true;
  metrics.record('deschedulerBuildInfo', 1, { ...BUILD, GoVersion: process.version });
  const kc = loadKubeConfig(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {});
  const clients = kubeClients(kc, { qps: flags.qps || CLIENT_GO_QPS, burst: flags.burst || CLIENT_GO_BURST, metrics });
  const serving = await startSecureServing(flags.serving, flags.disableMetrics ? undefined : metrics);
  try {
    const modes = await modesOf({ policy, kc, core: clients.core, log });
    const elect = flags.leaderElection.leaderElect && !flags.dryRun;
    if (flags.leaderElection.leaderElect && flags.dryRun)
      log.warn('DryRun is set to True: leader election is off (as the descheduler: disable the dry run to use it)');
    const held: { elector?: Elector } = {};
    const handle = cliHandle({
      clients: elect ? fencedClients(clients, () => held.elector?.holds() ?? false) : clients,
      policy,
      dryRun: flags.dryRun,
      chunkSize: 500,
      protectedNamespaces: DEFAULT_PROTECTED_NAMESPACES,
      ledgerNamespace: modes.ledgerNamespace,
      budgetMs: flags.deschedulingIntervalMs > 0 ? Math.max(flags.deschedulingIntervalMs, 60_000) : ONCE_BUDGET_MS,
      log,
      notifier: Notifier.off(),
      metrics,
      writerOptions: { eventStyle: 'descheduler', ...(modes.access.deletePods ? {} : { terminalVia: 'eviction' as const }) },
      ...(modes.ledgerPolicy ? { ledgerPolicy: modes.ledgerPolicy } : {}),
    });
    const cycle = () => runCycle({ handle, policy, dryRun: flags.dryRun, budgetMs: handle.settings.budgetMs, log, metrics });
    // Told to stop while it started (a pod deleted right after it was created: the policy, the
    // secure port and the access probe come first): no cycle begins after the stop, and the
    // loop's listener would never hear a signal that had already fired.
    if (io.stopSignal?.aborted) {
      log.info({ why: 'stop signal' }, 'stopping');
      return 0;
    }
    if (flags.deschedulingIntervalMs === 0) {
      await cycle();
      return 0;
    }
    return await loop({ flags, io, log, cycle, kc, metrics, held, elect });
  } finally {
    clients.close();
    await serving?.close();
  }
}

interface LoopParts {
  flags: DeschedulerFlags;
  io: DeschedulerIo;
  log: Logger;
  cycle: () => Promise<unknown>;
  kc: ReturnType<typeof loadKubeConfig>;
  metrics: MetricsRecorder;
  held: { elector?: Elector };
  elect: boolean;
}

/** Cycles every interval (wait.NonSlidingUntil), under the Lease when electing; 0 on a stop signal, 1 on losing the Lease. */
async function loop(p: LoopParts): Promise<number> {
  const { flags, log } = p;
  const le = flags.leaderElection;
  let timer: LongTimeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let done: (code: number) => void = () => undefined;
  const finished = new Promise<number>((r) => (done = r));
  let stopped = false;
  const next = (startedAt: number) => {
    if (stopped) return;
    // Any Go duration, 720h included: Node's own timer would fire one past 2^31-1 ms at once.
    const waitMs = Math.max(0, startedAt + flags.deschedulingIntervalMs - Date.now());
    timer = setLongTimeout(() => tick(), waitMs);
    log.debug({ nextInSeconds: Math.round(waitMs / 1000) }, 'waiting for the next cycle');
  };
  const tick = () => {
    const startedAt = Date.now();
    running = p.cycle().catch((e: unknown) => log.error({ err: (e as Error).message }, 'failed to run descheduler loop'));
    void running.then(() => next(startedAt));
  };
  const stop = async (code: number, why: string) => {
    if (stopped) return;
    stopped = true;
    timer?.clear();
    log.info({ why }, 'stopping');
    await running;
    await p.held.elector?.stop();
    done(code);
  };
  p.io.stopSignal?.addEventListener('abort', () => void stop(0, 'stop signal'), { once: true });
  if (!p.elect) tick();
  else {
    const me = `${hostname()}_${randomUUID()}`;
    p.held.elector = startElector({
      lease: leaseClient(p.kc, { namespace: le.resourceNamespace, name: le.resourceName }, { timeoutMs: le.renewDeadlineMs / 2, metrics: p.metrics }),
      me,
      leaseDurationSeconds: le.leaseDurationMs / 1000,
      renewDeadlineSeconds: le.renewDeadlineMs / 1000,
      retryPeriodSeconds: le.retryPeriodMs / 1000,
      log,
      metrics: p.metrics,
      onStarted: () => {
        log.info({ identity: me }, 'Started leading');
        if (!stopped) tick();
      },
      onLost: () => void stop(1, 'Leader lost'),
      // A Lease this account may not read or write (403, 400): waiting would be forever.
      onRefused: (why) => void stop(1, `the Lease request was refused: ${why}`),
    });
    log.info({ identity: me, lease: `${le.resourceNamespace}/${le.resourceName}` }, 'waiting for the Lease');
  }
  return finished;
}

import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { delimiter } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { Brakes } from '../brakes/io/brakes.js';
import type { KubeClients } from '../kube/index.js';
import type { WriteRefusals } from '../kube/write-refusals.js';
import type { ClusterWriter, WriterClients } from '../kube/writer.js';
import type { PodEventSeries } from '../kube/event-series.js';
import { createLogger, type Logger } from '../log.js';
import { MetricsRecorder } from '../metrics/recorder.js';
import { Notifier } from '../notify/notifier.js';
import type { Policy } from '../policy/policy.js';
import { ConfigError, readConfig, type RuntimeConfig } from './config.js';
import { filePolicySource, type PolicySource } from './policy-source.js';

/** Everything a function needs besides its input, built once per process. */
export interface Runtime {
  config: RuntimeConfig;
  /** The environment the configuration came from: each family reads its own variables. */
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** Cluster access; with `lazyKube`, usable once `kubeReady()` has resolved. */
  readonly kubeConfig: KubeConfig;
  readonly clients: KubeClients;
  /**
   * Loads the Kubernetes client and connects, once; resolves at once when already done. A
   * caller arriving while a load is under way waits for that load; a failed load is not kept,
   * so the next caller tries again. The HTTP entries' warm-up at start (hosts/server/warm.ts) is a
   * call to this, beside the sender check's keys.
   */
  kubeReady(): Promise<void>;
  /** The one way to change the cluster (kube/writer.ts); DRY_RUN unless `dryRun` says more. */
  writer(opts?: { dryRun?: boolean; clients?: WriterClients }): ClusterWriter;
  /**
   * This process's side of the brakes' shared ledger (brakes/io/brakes.ts): one per process,
   * so reservations carry across events. `dryRun` (invoke's plan) gets a fresh one that
   * writes nothing; a DRY_RUN process's own writes nothing either.
   */
  brakes(opts?: { dryRun?: boolean }): Brakes;
  /** Absent for targets that need none (orphanSweep); see policyOf. */
  policy?: PolicySource;
  /** The clock, injectable for tests. */
  now(): number;
  /**
   * The process's CloudEvents out (notify/notifier.ts): built once at start from its
   * environment (EVENTS_SINK, K_SINK, EVENTS_TOPIC), stamped with its clock; every family's
   * handle carries it and the end of every request flushes it.
   */
  notifier: Notifier;
  /**
   * The process's metrics recorder (metrics/recorder.ts): built once at start from its
   * environment (whether it pushes over OTLP); every family's handle, the clients' middleware,
   * the writer's refusals and the brakes record into it, /metrics and the push read it.
   */
  metrics: MetricsRecorder;
  /** This process's name as its host knows it (HOSTNAME: the pod's name): its Events' reportingInstance and its hold's name in the ledger. */
  instance: string;
  /**
   * The process stops: its Event series (kube/event-series.ts) write what they counted and not
   * yet wrote, within `deadlineMs`. Nothing to do when no removal was counted. Hosts call it
   * after their last request or event is done.
   */
  drainEvents(deadlineMs: number): Promise<{ drained: boolean }>;
}

export interface StartOptions {
  /**
   * Load the Kubernetes client on first need rather than at start. Evaluating
   * @kubernetes/client-node is most of a cold start (80-140 ms), and most pod events need no
   * cluster request at all: a nothing-to-do answer should not wait for it.
   */
  lazyKube?: boolean;
  /** Whether the target reads a DeschedulerPolicy (POLICY_FILE or POLICY_CONFIGMAP required). */
  needsPolicy?: boolean;
  /** Wraps the clients every writer of this runtime writes through (standalone: its Lease fence). */
  writerClients?: <C extends WriterClients>(clients: C) => C;
}

/** The current policy of a runtime whose target needs one. */
export function policyOf(rt: Runtime): Policy {
  if (!rt.policy) throw new Error('this target was started without a policy');
  return rt.policy.current().policy;
}

/**
 * Reads the configuration and the policy and checks that a cluster is configured. Throws
 * ConfigError, PolicyError or KubeConfigError with every problem named: the process must not
 * start serving with a bad setup.
 */
export async function startRuntime(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<Runtime> = {},
  { lazyKube = false, needsPolicy = true, writerClients }: StartOptions = {},
): Promise<Runtime> {
  const config = readConfig(env, { needsPolicy });
  const log = overrides.log ?? createLogger({ env });
  const instance = overrides.instance ?? (env.HOSTNAME || hostname());
  const now = overrides.now ?? Date.now;
  // The process's recorder: every edge records into it, /metrics and the OTLP push read it.
  const metrics = overrides.metrics ?? new MetricsRecorder(env);
  const notifier = overrides.notifier ?? notifierOf(env, now, metrics);
  if (!overrides.kubeConfig) checkClusterConfigured(config, env);
  const kube = kubeLoader(config, overrides, log, metrics);
  // A ConfigMap policy is read from the cluster at start, so the client is needed now anyway.
  if (!lazyKube || config.POLICY_CONFIGMAP) await kube.ready();
  const policy = await policySourceOf(config, overrides, needsPolicy, kube, log);
  log.info({ policySource: policy?.describe() ?? 'none', dryRun: config.DRY_RUN, lazyKube }, 'kube-tidy runtime ready');
  const series = seriesOf(config, kube, { instance, writerClients, now, log });
  const writer = writerOf(config, kube, { instance, writerClients, policy, series });
  const brakes = brakesOf(config, kube, writer, overrides, { now, log, instance, metrics });
  return {
    config,
    env,
    log,
    ...(policy ? { policy } : {}),
    writer,
    brakes,
    now,
    notifier,
    metrics,
    instance,
    drainEvents: (deadlineMs) => series.built?.drain(deadlineMs) ?? Promise.resolve({ drained: true }),
    kubeReady: kube.ready,
    get kubeConfig() {
      return kube.loaded().kubeConfig;
    },
    get clients() {
      return kube.loaded().clients;
    },
  };
}

/** Cluster access loaded on first need: the client, the writer's class and where refused writes are logged. */
interface KubeLoader {
  ready(): Promise<void>;
  /** The client; throws while it is not loaded. */
  loaded(): { kubeConfig: KubeConfig; clients: KubeClients };
  /** The writer's class and the process's refused writes, once loaded. */
  writing(): { Writer: typeof ClusterWriter; Series: typeof PodEventSeries; refusals: WriteRefusals };
}

function kubeLoader(config: RuntimeConfig, overrides: Partial<Runtime>, log: Logger, metrics: MetricsRecorder): KubeLoader {
  let kube: { kubeConfig: KubeConfig; clients: KubeClients } | undefined =
    overrides.kubeConfig && overrides.clients ? { kubeConfig: overrides.kubeConfig, clients: overrides.clients } : undefined;
  let loading: Promise<void> | undefined;
  // What this process keeps across requests, built once here and handed down: where a refused
  // write is logged (sampled per process) and counted.
  let writing: { Writer: typeof ClusterWriter; Series: typeof PodEventSeries; refusals: WriteRefusals } | undefined;
  // The client and the writer (which needs the client) load together, on first need; clients
  // given as overrides (tests, benches) still need the writer's module.
  const ready = (): Promise<void> =>
    kube && writing
      ? Promise.resolve()
      : (loading ??= Promise.all([
          import('../kube/index.js'),
          import('../kube/writer.js'),
          import('../kube/write-refusals.js'),
          import('../kube/event-series.js'),
        ])
          .then(([k, w, r, es]) => {
            // Refused writes are logged where this process logs (the CLI: stderr, never its output).
            writing = { Writer: w.ClusterWriter, Series: es.PodEventSeries, refusals: new r.WriteRefusals(metrics, log) };
            if (kube) return;
            const kubeConfig = overrides.kubeConfig ?? k.loadKubeConfig(config.KUBECONFIG ? { kubeconfig: config.KUBECONFIG } : {});
            const timeoutMs = config.REQUEST_TIMEOUT_SECONDS * 1000;
            kube = {
              kubeConfig,
              clients: overrides.clients ?? k.kubeClients(kubeConfig, { timeoutMs, qps: config.KUBE_CLIENT_QPS, burst: config.KUBE_CLIENT_BURST, metrics }),
            };
          })
          // A failed load is not kept: the next caller (a request after a failed warm-up) tries again.
          .catch((e: unknown) => {
            loading = undefined;
            throw e;
          }));
  const notYet = () => new Error('cluster access is not loaded yet: await rt.kubeReady() first');
  return {
    ready,
    loaded() {
      if (!kube) throw notYet();
      return kube;
    },
    writing() {
      if (!writing) throw notYet();
      return writing;
    },
  };
}

/** The policy's source: the caller's, none, the file or the ConfigMap (read now). Its warnings logged. */
async function policySourceOf(
  config: RuntimeConfig,
  overrides: Partial<Runtime>,
  needsPolicy: boolean,
  kube: KubeLoader,
  log: Logger,
): Promise<PolicySource | undefined> {
  // A source the caller gave has had its warnings shown by the caller (the CLI prints them).
  if (overrides.policy) return overrides.policy;
  if (!needsPolicy) return undefined;
  let policy: PolicySource;
  if (config.POLICY_FILE) {
    policy = filePolicySource(config.POLICY_FILE, config.ALLOW_UNSUPPORTED_PLUGINS);
  } else {
    const [namespace, name] = config.POLICY_CONFIGMAP!.split('/') as [string, string];
    const { configMapPolicySource } = await import('./configmap-policy-source.js');
    const { kubeConfig, clients } = kube.loaded();
    policy = await configMapPolicySource(
      kubeConfig,
      clients.core,
      { namespace, name, key: config.POLICY_CONFIGMAP_KEY },
      config.ALLOW_UNSUPPORTED_PLUGINS,
      log,
    );
  }
  for (const w of policy.current().warnings) log.warn({ policySource: policy.describe() }, w);
  return policy;
}

/** The process's Event series, built with the first writer that records Events (the client is loaded by then). */
interface SeriesHolder {
  readonly built: PodEventSeries | undefined;
  get(): PodEventSeries | undefined;
}

function seriesOf(
  config: RuntimeConfig,
  kube: KubeLoader,
  o: { instance: string; writerClients: StartOptions['writerClients']; now: () => number; log: Logger },
): SeriesHolder {
  let built: PodEventSeries | undefined;
  const on = config.RECORD_EVENTS && !config.DRY_RUN && config.EVENT_SERIES_WINDOW_SECONDS > 0;
  return {
    get built() {
      return built;
    },
    get() {
      if (!on) return undefined;
      if (built) return built;
      const { Series } = kube.writing();
      const clients = kube.loaded().clients;
      // Through the same (in standalone, fenced) clients as every write of the process.
      const events = (o.writerClients ? o.writerClients(clients) : clients).events;
      const windowMs = config.EVENT_SERIES_WINDOW_SECONDS * 1000;
      const intervalMs = Math.min(config.EVENT_SERIES_INTERVAL_SECONDS * 1000, windowMs);
      return (built = new Series({ events, now: o.now, instance: o.instance, log: o.log, windowMs, intervalMs, named: SERIES_NAMED }));
    },
  };
}

/** How many pods a series' note names besides the one with its own Event (the note holds 1 KiB). */
const SERIES_NAMED = 5;

/** The runtime's `writer`: the process's settings, its refused writes and Event series, the policy's grace period as it is now. */
function writerOf(
  config: RuntimeConfig,
  kube: KubeLoader,
  o: { instance: string; writerClients: StartOptions['writerClients']; policy: PolicySource | undefined; series: SeriesHolder },
): Runtime['writer'] {
  return (opts = {}) => {
    const { Writer, refusals } = kube.writing();
    const clients = opts.clients ?? kube.loaded().clients;
    const grace = o.policy?.current().policy.gracePeriodSeconds;
    const dryRun = config.DRY_RUN || opts.dryRun === true;
    // Only the process's own clients count into its series: a writer over other clients (a test's, a worker cluster's) records each Event.
    const series = dryRun || opts.clients ? undefined : o.series.get();
    return new Writer(o.writerClients ? o.writerClients(clients) : clients, {
      dryRun,
      recordEvents: config.RECORD_EVENTS,
      protectedNamespaces: config.PROTECTED_NAMESPACES,
      instance: o.instance,
      refusals,
      ...(grace === undefined ? {} : { gracePeriodSeconds: grace }),
      ...(series ? { series } : {}),
    });
  };
}

/** The runtime's `brakes`: one per process (reservations carry across events), a fresh one for a dry run. */
function brakesOf(
  config: RuntimeConfig,
  kube: KubeLoader,
  writer: Runtime['writer'],
  overrides: Partial<Runtime>,
  o: { now: () => number; log: Logger; instance: string; metrics: MetricsRecorder },
): Runtime['brakes'] {
  // Which deferrals this process has told (tell.ts), kept across requests.
  const told = new Set<string>();
  let brakes: Brakes | undefined;
  const newBrakes = (dryRun: boolean, w: ClusterWriter) =>
    new Brakes({
      core: kube.loaded().clients.core,
      writer: w,
      namespace: config.BRAKES_NAMESPACE,
      holdMs: config.BRAKES_HOLD_SECONDS * 1000,
      dryRun,
      now: o.now,
      log: o.log,
      instance: o.instance,
      told,
      metrics: o.metrics,
    });
  return (opts = {}) => {
    if (opts.dryRun && !config.DRY_RUN) return newBrakes(true, writer({ dryRun: true }));
    return (brakes ??= overrides.brakes?.(opts) ?? newBrakes(config.DRY_RUN, writer()));
  };
}

/** The process's outbox from `env`; settings readConfig let through but the outbox refuses send nothing (as before a sink is set). */
function notifierOf(env: NodeJS.ProcessEnv, now: () => number, metrics: MetricsRecorder): Notifier {
  try {
    return Notifier.fromEnv(env, now, undefined, metrics);
  } catch {
    // Checked at start (config.ts): a process that got this far without valid settings sends nothing.
    return Notifier.off();
  }
}

/**
 * What loadKubeConfig would refuse, checked without loading the client, so a bad setup still
 * stops the process at start: a KUBECONFIG that names no file, or no cluster at all.
 */
function checkClusterConfigured(config: RuntimeConfig, env: NodeJS.ProcessEnv): void {
  if (config.KUBECONFIG) {
    const missing = config.KUBECONFIG.split(delimiter).filter((f) => f !== '' && !existsSync(f));
    if (missing.length > 0) throw new ConfigError([`KUBECONFIG: no such file ${missing.join(', ')}`]);
    return;
  }
  if (!env.KUBERNETES_SERVICE_HOST) {
    throw new ConfigError(['KUBECONFIG: not set, and not running in a cluster (KUBERNETES_SERVICE_HOST is unset): set KUBECONFIG to a kubeconfig file']);
  }
}

// kube-tidy without Knative: one process (the chart's standalone Deployment) that watches the
// cluster with the bridge's watch (Resource mode: the whole object in every event), hands each
// event in process to the targets that accept its kind (routing.ts, dispatch.ts: the resolver
// every transport shares, no HTTP), and runs the scheduled ones on its own clock.
// Replicas elect one leader through a Lease; only the leader watches and runs anything. On
// SIGTERM it stops watching, drains, gives the Lease up and exits 0; on losing the Lease it
// stops and exits 1, so the kubelet restarts it as a follower. Fenced (fence.ts, leader.ts
// `holds`): once the Lease is not known to be held by the local monotonic clock, no write is
// sent, no queued event or tick reaches a target, and the backlog is dropped, not drained.
import { sleepLong } from '../../config/long-timeout.js';
import type { Server } from 'node:http';
import { isTarget, TARGETS } from '../../../functions/index.js';
import { startBridge, type Bridge } from '../bridge/bridge.js';
import { KINDS, type KindInfo } from '../bridge/kinds.js';
import { leaseClient } from '../../kube/lease.js';
import { createLogger } from '../../log.js';
import { MetricsRecorder } from '../../metrics/recorder.js';
import { setupTargets } from '../server/setup.js';
import { readStandaloneConfig, type StandaloneConfig } from './config.js';
import { selectorString } from './core/selector.js';
import { inProcessDispatch } from './dispatch.js';
import { fencedClients } from './fence.js';
import { startHealthServer } from './health.js';
import { watchNamespaces, type NamespaceSet } from './namespaces.js';
import { startElector, type Elector } from './leader.js';
import { routesOf, watchedKinds } from './routing.js';
import { startScheduler, type Scheduler } from './scheduler.js';

function cannotStart(reason: string): never {
  process.stderr.write(`kube-tidy standalone: cannot start: ${reason}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  const log = createLogger({ name: 'kube-tidy-standalone' });
  const c = configOrExit();

  let ready = false;
  const held: { elector?: Elector } = {};
  // The process's recorder, built before the runtime so /metrics answers from the start; the runtime records into it.
  const metrics = new MetricsRecorder(process.env);
  const health: Server = await startHealthServer(c.PORT, {
    metrics,
    ready: () => ready,
    leader: () => held.elector?.holds() ?? false,
    sinceLastRound: () => (held.elector ? Date.now() - held.elector.lastRound() : undefined),
    staleAfterMs: (c.LEASE_RENEW_DEADLINE_SECONDS + 3 * c.LEASE_RETRY_PERIOD_SECONDS) * 1000,
  });

  // Exits 2 with the reason on a bad policy or cluster setup, as the image's server does.
  // The fence: every write of every writer asks it right before it is sent.
  const holds = () => held.elector?.holds() ?? false;
  const { rt, served } = await setupTargets(c.STANDALONE_FUNCTIONS, { writerClients: (clients) => fencedClients(clients, holds), metrics });
  await rt.kubeReady();
  const routes = routesOf(served);
  const dispatch = inProcessDispatch({ served, routes, rt, log: rt.log, holds });

  const work: Work = { bridges: [] };
  const startWork = () => startWatchesAndTicks(work, { c, rt, routes, dispatch, holds, served });

  let stopping: Promise<void> | undefined;
  // `lost`: the Lease is gone, so the backlog is dropped (the new leader lists afresh), not drained.
  const stop = (why: string, code: number, { lost = false } = {}) =>
    (stopping ??= (async () => {
      ready = false;
      // Timers a family armed (podTerminated's, at eligibleAt) stop first: nothing new starts while stopping.
      for (const { parts } of served) (parts as { stop?: () => void }).stop?.();
      rt.log.info({ why }, lost ? 'stopping: not leading, dropping queued events and ticks' : 'stopping: no new work, draining');
      const deadline = c.SHUTDOWN_TIMEOUT_SECONDS * 1000;
      const started = Date.now();
      await Promise.race([
        Promise.all([...work.bridges.map((b) => b.stop({ deadlineMs: lost ? 0 : deadline })), work.scheduler?.stop({ abandon: lost })]),
        sleepLong(deadline),
      ]);
      work.bridges = [];
      // The Event series' last counts, while the Lease is still held (without it the fence refuses them).
      if (!lost) await rt.drainEvents(Math.max(0, deadline - (Date.now() - started)));
      await work.namespaces?.stop();
      // Last, so no replica acts while this one still finishes work.
      await held.elector?.stop();
      if (dispatch.dropped()) rt.log.info({ dropped: dispatch.dropped() }, 'events and ticks dropped while not holding the Lease');
      health.close();
      rt.log.info({ code }, 'stopped');
      rt.log.flush(() => process.exit(code));
    })());

  held.elector = startElector({
    // Half the renew deadline per request: a hung one leaves time for the next try.
    lease: leaseClient(rt.kubeConfig, { namespace: c.POD_NAMESPACE, name: c.LEASE_NAME }, { timeoutMs: (c.LEASE_RENEW_DEADLINE_SECONDS * 1000) / 2, metrics }),
    me: c.POD_NAME,
    leaseDurationSeconds: c.LEASE_DURATION_SECONDS,
    renewDeadlineSeconds: c.LEASE_RENEW_DEADLINE_SECONDS,
    retryPeriodSeconds: c.LEASE_RETRY_PERIOD_SECONDS,
    log: rt.log,
    metrics,
    // Never again once stopping: a replica that lost the Lease exits, whatever a later round says.
    onStarted: () => {
      if (!stopping) startWork().catch((e: unknown) => void stop(`could not start watching: ${(e as Error).message}`, 1));
    },
    onLost: () => void stop('lost the Lease', 1, { lost: true }),
    onRefused: (why) => void stop(`the Lease request was refused: ${why}`, 1, { lost: true }),
  });
  ready = true;
  log.info(
    { identity: c.POD_NAME, lease: `${c.POD_NAMESPACE}/${c.LEASE_NAME}`, functions: c.STANDALONE_FUNCTIONS, port: c.PORT },
    'standalone started: waiting for the Lease',
  );
  process.once('SIGTERM', () => void stop('SIGTERM', 0));
  process.once('SIGINT', () => void stop('SIGINT', 0));
}

function configOrExit(): StandaloneConfig {
  let c: StandaloneConfig;
  try {
    c = readStandaloneConfig(process.env);
  } catch (e) {
    cannotStart((e as Error).message);
  }
  const unknown = c.STANDALONE_FUNCTIONS.filter((t) => !isTarget(t));
  if (unknown.length) cannotStart(`STANDALONE_FUNCTIONS: ${unknown.join(', ')} not among ${Object.keys(TARGETS).join(', ')}`);
  return c;
}

/** What the leader runs, kept as it starts so that stop finds whatever had started. */
interface Work {
  bridges: Bridge[];
  namespaces?: NamespaceSet;
  scheduler?: Scheduler;
}

interface WorkParts {
  c: StandaloneConfig;
  rt: Awaited<ReturnType<typeof setupTargets>>['rt'];
  routes: ReturnType<typeof routesOf>;
  dispatch: ReturnType<typeof inProcessDispatch>;
  holds: () => boolean;
  served: Awaited<ReturnType<typeof setupTargets>>['served'];
}

/** Kind -> how to watch it, for the kinds targets found by discovery (`accepts.watches`). */
async function discoveredKinds(served: WorkParts['served']): Promise<Record<string, Omit<KindInfo, 'kind'>>> {
  const found: Record<string, Omit<KindInfo, 'kind'>> = {};
  for (const { spec, parts } of served)
    for (const k of (await spec.accepts.watches?.(parts)) ?? []) found[k.kind] ??= { apiVersion: k.apiVersion, resource: k.resource };
  return found;
}

/** On taking the Lease: a bridge per watched kind into the in-process dispatch, and the scheduler. */
async function startWatchesAndTicks(work: Work, { c, rt, routes, dispatch, holds, served }: WorkParts): Promise<void> {
  // The kinds the bridge's table knows, and those a target found by discovery (a ttl rule's), read as the Lease is taken.
  const found = await discoveredKinds(served);
  const { watched: kinds, unwatched } = watchedKinds(routes, { ...found, ...KINDS });
  const infoOf = (kind: string): string | KindInfo => (Object.hasOwn(KINDS, kind) ? kind : { kind, ...found[kind]! });
  if (unwatched.length) rt.log.info({ kinds: unwatched }, 'not watched (no watch for these kinds): their targets see them on their ticks');
  // Events only (as the ApiServerSource's namespaceSelector); scheduled passes keep the
  // policy's own namespace filters, in Knative as here.
  const nsSelector = c.STANDALONE_SELECTORS.namespaces;
  if (nsSelector && kinds.length)
    work.namespaces = await watchNamespaces({ kubeConfig: rt.kubeConfig, labelSelector: selectorString(nsSelector), log: rt.log });
  const inNamespaces = work.namespaces;
  for (const kind of kinds) {
    const labelSelector = selectorString(c.STANDALONE_SELECTORS[kind]);
    work.bridges.push(
      await startBridge({
        kubeConfig: rt.kubeConfig,
        sink: {
          name: `in-process: ${routes
            .get(kind)!
            .map((r) => r.target)
            .join(', ')}`,
          send: dispatch.event,
        },
        kinds: [infoOf(kind)],
        ...(labelSelector ? { labelSelector } : {}),
        // A Namespace is in the selected namespaces by its own name; another cluster-scoped object is in none, and passes.
        ...(inNamespaces
          ? { accept: (o) => (o.kind === 'Namespace' ? inNamespaces.has(o.metadata.name) : !o.metadata.namespace || inNamespaces.has(o.metadata.namespace)) }
          : {}),
        log: rt.log,
      }),
    );
  }
  work.scheduler = startScheduler({
    schedules: c.STANDALONE_SCHEDULES,
    targets: c.STANDALONE_FUNCTIONS,
    run: dispatch.tick,
    log: rt.log,
    fence: holds,
    // The due lists' ticks at once: what the last leader scheduled is acted on at its time.
    atStart: ['podTerminated', 'objectUpdated'],
  });
}

main().catch((e: unknown) => cannotStart((e as Error).stack ?? String(e)));

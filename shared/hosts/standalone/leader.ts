// The election loop: every retry period, read the Lease and do what decideLease says. The
// leader that has not renewed within the renew deadline stops leading (onLost) before its
// claim can expire in anyone else's eyes. `holds()` is the fence every write and every
// dispatch asks (core/fence.ts): it reads the monotonic clock itself, so it is shut the moment
// the deadline passes, even when the loop has not run (a process paused by SIGSTOP, a blocked
// event loop); what the Lease then says is the loop's next round to find out.
// A leader that finds its Lease deleted, or no longer naming a holder (issue 33), shuts its
// fence at once: its memory of leading is no claim anyone else can see. It writes again only
// once a create or an update at the resourceVersion read succeeds; if another replica's does
// first, it has lost.
import { performance } from 'node:perf_hooks';
import type { LeaseClient, ObservedLease } from '../../kube/lease.js';
import type { Logger } from '../../log.js';
import { observeStateUnreadable } from '../../metrics/observe.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import { decideLease, releasedLease, type ElectionStep, type LeaseSpec } from './core/election.js';
import { fenceOpen } from './core/fence.js';

export interface ElectorOptions {
  lease: LeaseClient;
  me: string;
  leaseDurationSeconds: number;
  renewDeadlineSeconds: number;
  retryPeriodSeconds: number;
  log: Logger;
  /** Where a Lease found deleted or naming no holder is counted: the process's recorder. */
  metrics: MetricsRecorder;
  onStarted(): void;
  onLost(): void;
  now?: () => number;
  /** The monotonic clock (ms) the fence is timed by; performance.now by default. */
  mono?: () => number;
}

export interface Elector {
  isLeader(): boolean;
  /**
   * The fence: true only while this replica leads and its claim is known to hold by the local
   * monotonic clock. Once false, it stays false until the Lease is renewed again, which only a
   * Lease nobody else took can be (the write carries the resourceVersion read): the loop's next
   * round either renews it (a leader late by a slow request goes on) or finds it lost (onLost).
   */
  holds(): boolean;
  /** When the loop last completed a round (liveness). */
  lastRound(): number;
  /** Stops the loop; a leader gives the Lease up so a waiting replica takes over at once. */
  stop(): Promise<void>;
}

/** A Lease deleted while this replica led or waited on a claim, or naming no holder when no release wrote it: said, once per change. */
function notAsWritten(spec: LeaseSpec | undefined, c: { leading: boolean; waited: boolean; me: string; log: Logger; metrics: MetricsRecorder }): void {
  const released = spec && !spec.holderIdentity && spec.leaseDurationSeconds === 1 && spec.renewTime;
  const found = !spec ? (c.leading || c.waited ? 'deleted' : undefined) : !spec.holderIdentity && (c.leading || !released) ? 'unreadable' : undefined;
  if (!found) return;
  observeStateUnreadable(c.metrics, 'lease', found);
  const then = c.leading ? 'this replica led: fenced until it holds the Lease again' : 'not taken before the last claim seen could have ended';
  c.log.error({ identity: c.me, found, ...(spec ? { spec } : {}) }, `the Lease was ${found === 'deleted' ? 'deleted' : 'found naming no holder'}: ${then}`);
}

export function startElector(o: ElectorOptions): Elector {
  const now = o.now ?? Date.now;
  const mono = o.mono ?? (() => performance.now());
  let seen: { key: string; at: number } | undefined;
  let held: ObservedLease | undefined;
  let renewSentAt = -Infinity;
  let leading = false;
  let lastRound = now();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let lastClaim: Extract<ElectionStep, { action: 'wait' }> | undefined;

  const round = async () => {
    const current = await o.lease.read();
    const key = JSON.stringify(current?.spec ?? null);
    if (seen?.key !== key) {
      seen = { key, at: now() };
      notAsWritten(current?.spec, { leading, waited: lastClaim !== undefined, me: o.me, log: o.log, metrics: o.metrics });
    }
    const { leaseDurationSeconds, me } = o;
    const step = decideLease({ lease: current?.spec, observedAt: seen.at, me, now: now(), leaseDurationSeconds, leading, lastClaim });
    if (step.action === 'wait') {
      lastClaim = step;
      if (leading) lose(step.holder ? `the Lease is held by ${step.holder}` : 'the Lease names no holder');
      return;
    }
    // Not renewing its own Lease: a leader's claim is no longer visible to anyone, so nothing is sent until this write succeeds.
    if (step.action !== 'renew') renewSentAt = -Infinity;
    const sentAt = mono();
    const w = step.action === 'create' ? await o.lease.create(step.spec) : await o.lease.update(step.spec, current!.resourceVersion);
    if (!w.ok) {
      o.log.info({ action: step.action, conflict: w.conflict, error: w.error }, 'lease write refused: another replica was quicker or the API server said no');
      return;
    }
    held = w.lease;
    renewSentAt = sentAt;
    seen = { key: JSON.stringify(w.lease.spec), at: now() };
    if (!leading) {
      leading = true;
      const from = step.action === 'acquire' ? { from: step.from || '(released)' } : {};
      o.log.info({ identity: o.me, action: step.action, ...from }, 'leading: this replica acts');
      o.onStarted();
    }
  };

  const lose = (why: string) => {
    if (!leading) return;
    leading = false;
    held = undefined;
    o.log.error({ identity: o.me, why }, 'lost the Lease: stopping');
    o.onLost();
  };

  const overdue = () => leading && !fenceOpen({ leading, renewSentAt }, mono(), o.renewDeadlineSeconds);

  const loop = () => {
    if (stopped) return;
    running = round()
      .catch((e: unknown) => o.log.warn({ err: (e as Error).message }, 'lease round failed'))
      .then(() => {
        lastRound = now();
        if (overdue()) lose(`not renewed within ${o.renewDeadlineSeconds} s`);
        if (!stopped) timer = setTimeout(loop, o.retryPeriodSeconds * 1000);
      });
  };
  loop();

  return {
    isLeader: () => leading,
    holds: () => fenceOpen({ leading, renewSentAt }, mono(), o.renewDeadlineSeconds),
    lastRound: () => lastRound,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      if (leading && held) {
        const w = await o.lease.update(releasedLease(held.spec, now()), held.resourceVersion);
        o.log.info({ released: w.ok, ...(w.ok ? {} : { error: w.error }) }, 'gave the Lease up');
      }
      leading = false;
    },
  };
}

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
import { setLongTimeout, type LongTimeout } from '../../config/long-timeout.js';
import { leaseRefused, type LeaseClient, type ObservedLease } from '../../kube/lease.js';
import type { Logger } from '../../log.js';
import { observeStateUnreadable } from '../../metrics/observe.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import { decideLease, isRelease, releasedLease, type ElectionStep, type LeaseSpec } from './core/election.js';
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
  /**
   * A Lease request no retry mends (kube/lease.ts leaseRefused: a name the path guard refuses,
   * 403, 400/422): the loop has ended (a leader lost first); the host stops rather than wait forever.
   */
  onRefused?(why: string): void;
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
  const released = isRelease(spec);
  const found = !spec ? (c.leading || c.waited ? 'deleted' : undefined) : !spec.holderIdentity && (c.leading || !released) ? 'unreadable' : undefined;
  if (!found) return;
  observeStateUnreadable(c.metrics, 'lease', found);
  const then = c.leading ? 'this replica led: fenced until it holds the Lease again' : 'not taken before the last claim seen could have ended';
  c.log.error({ identity: c.me, found, ...(spec ? { spec } : {}) }, `the Lease was ${found === 'deleted' ? 'deleted' : 'found naming no holder'}: ${then}`);
}

/** What the election loop keeps between rounds. */
interface RoundState {
  seen?: { key: string; at: number };
  held?: ObservedLease;
  renewSentAt: number;
  leading: boolean;
  lastClaim?: Extract<ElectionStep, { action: 'wait' }>;
  /** When the claim this round decided to wait on ends; undefined when the round did not wait. */
  waitingUntil?: number;
}

interface RoundContext {
  now: () => number;
  mono: () => number;
  lose(why: string): void;
  refuse(why: string): void;
}

/** One round: read the Lease, decide (core/election.ts), write what was decided. */
async function roundOf(o: ElectorOptions, st: RoundState, c: RoundContext): Promise<void> {
  st.waitingUntil = undefined;
  const current = await o.lease.read().catch((e: unknown) => {
    if (leaseRefused(e)) c.refuse(`reading the Lease: ${(e as Error).message}`);
    throw e;
  });
  const key = JSON.stringify(current?.spec ?? null);
  if (st.seen?.key !== key) {
    st.seen = { key, at: c.now() };
    notAsWritten(current?.spec, { leading: st.leading, waited: st.lastClaim !== undefined, me: o.me, log: o.log, metrics: o.metrics });
  }
  const { leaseDurationSeconds, me } = o;
  const step = decideLease({
    lease: current?.spec,
    observedAt: st.seen.at,
    me,
    now: c.now(),
    leaseDurationSeconds,
    leading: st.leading,
    lastClaim: st.lastClaim,
  });
  if (step.action === 'wait') {
    st.lastClaim = step;
    st.waitingUntil = step.expiresAt;
    if (st.leading) c.lose(step.holder ? `the Lease is held by ${step.holder}` : 'the Lease names no holder');
    return;
  }
  // Not renewing its own Lease: a leader's claim is no longer visible to anyone, so nothing is sent until this write succeeds.
  if (step.action !== 'renew') st.renewSentAt = -Infinity;
  const sentAt = c.mono();
  const w = step.action === 'create' ? await o.lease.create(step.spec) : await o.lease.update(step.spec, current!.resourceVersion);
  if (!w.ok) {
    if (w.refused) return c.refuse(`${step.action === 'create' ? 'creating' : 'updating'} the Lease: ${w.error}`);
    o.log.info({ action: step.action, conflict: w.conflict, error: w.error }, 'lease write refused: another replica was quicker or the API server said no');
    return;
  }
  st.held = w.lease;
  st.renewSentAt = sentAt;
  st.seen = { key: JSON.stringify(w.lease.spec), at: c.now() };
  if (!st.leading) {
    st.leading = true;
    const from = step.action === 'acquire' ? { from: step.from || '(released)' } : {};
    o.log.info({ identity: o.me, action: step.action, ...from }, 'leading: this replica acts');
    o.onStarted();
  }
}

/**
 * The next round in a retry period, or sooner when the claim this replica waits on ends first:
 * a Lease released at shutdown (1 s) is taken a second after it was seen, not a period later
 * (client-go takes a Lease naming no holder at its next round, every retry period x [1, 2.2]).
 */
function nextRoundInMs(retryPeriodSeconds: number, waitingUntil: number | undefined, now: number): number {
  const retryMs = retryPeriodSeconds * 1000;
  return waitingUntil === undefined ? retryMs : Math.min(retryMs, Math.max(0, waitingUntil - now));
}

export function startElector(o: ElectorOptions): Elector {
  const now = o.now ?? Date.now;
  const mono = o.mono ?? (() => performance.now());
  const st: RoundState = { renewSentAt: -Infinity, leading: false };
  let lastRound = now();
  let stopped = false;
  let timer: LongTimeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const lose = (why: string) => {
    if (!st.leading) return;
    st.leading = false;
    st.held = undefined;
    o.log.error({ identity: o.me, why }, 'lost the Lease: stopping');
    o.onLost();
  };

  const refuse = (why: string) => {
    if (stopped) return;
    stopped = true;
    lose(why);
    o.log.error({ identity: o.me, why }, 'the Lease request was refused: no retry mends it, the election ends');
    o.onRefused?.(why);
  };

  const overdue = () => st.leading && !fenceOpen({ leading: st.leading, renewSentAt: st.renewSentAt }, mono(), o.renewDeadlineSeconds);

  const loop = () => {
    if (stopped) return;
    running = round()
      .catch((e: unknown) => o.log.warn({ err: (e as Error).message }, 'lease round failed'))
      .then(() => {
        lastRound = now();
        if (overdue()) lose(`not renewed within ${o.renewDeadlineSeconds} s`);
        // Any Go duration or setting: a period past 2^31-1 ms waits in steps instead of firing at once.
        if (!stopped) timer = setLongTimeout(loop, nextRoundInMs(o.retryPeriodSeconds, st.waitingUntil, now()));
      });
  };
  const round = () => roundOf(o, st, { now, mono, lose, refuse });
  loop();

  return {
    isLeader: () => st.leading,
    holds: () => fenceOpen({ leading: st.leading, renewSentAt: st.renewSentAt }, mono(), o.renewDeadlineSeconds),
    lastRound: () => lastRound,
    stop: async () => {
      stopped = true;
      timer?.clear();
      await running;
      if (st.leading && st.held) {
        const w = await o.lease.update(releasedLease(st.held.spec, now()), st.held.resourceVersion);
        o.log.info({ released: w.ok, ...(w.ok ? {} : { error: w.error }) }, 'gave the Lease up');
      }
      st.leading = false;
    },
  };
}

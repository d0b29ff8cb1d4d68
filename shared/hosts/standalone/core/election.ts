// Leader election over a coordination.k8s.io/v1 Lease, as a pure decision: given the Lease
// as last read, when this process last saw it change, and the time, what to write. The
// rules are client-go's leaderelection: a holder's claim lasts leaseDurationSeconds from the
// moment *we observed* its last renewal (our own clock, never the holder's renewTime, so
// clock skew between nodes cannot shorten it).
// A Lease that cannot be read as a claim is never taken as free at once (issue 33): one with
// no holder is free only once the duration it states (ours when it states none) has passed
// since it was seen, so a release (1 s, as client-go and releasedLease write it) costs a second
// and a hand edit or a bad restore costs a full claim; a Lease deleted while another held it
// is created only once that holder's claim, as last seen, could have ended. The leader itself
// takes either back at once, but only by a write the API server orders (create, or an update
// at the resourceVersion read), with its fence shut until that write succeeds (leader.ts).

import type { LeaseSpec } from '../../../model/lease.js';

export type { LeaseSpec };

export interface ElectionInput {
  /** The Lease's spec as read; undefined when it does not exist. */
  lease: LeaseSpec | undefined;
  /** When this process first saw the Lease's current spec (ms since the epoch). */
  observedAt: number;
  me: string;
  now: number;
  leaseDurationSeconds: number;
  /** Whether this process leads (it wrote the Lease last, as far as it knows). */
  leading?: boolean;
  /** Another holder's claim this process last saw (its last `wait`): a Lease deleted since cannot end it sooner. */
  lastClaim?: { holder: string; expiresAt: number };
}

export type ElectionStep =
  | { action: 'create'; spec: LeaseSpec }
  | { action: 'renew'; spec: LeaseSpec }
  | { action: 'acquire'; spec: LeaseSpec; from: string }
  | { action: 'wait'; holder: string; expiresAt: number };

const iso = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '000Z');

export function decideLease(i: ElectionInput): ElectionStep {
  const now = iso(i.now);
  // The Lease holds whole seconds (int32): a duration such as 15.5s is written 15, as client-go
  // writes int(LeaseDuration / time.Second); a fraction would be refused (400) on every write.
  const stated = Math.max(1, Math.floor(i.leaseDurationSeconds));
  const fresh = (transitions: number): LeaseSpec => ({
    holderIdentity: i.me,
    leaseDurationSeconds: stated,
    acquireTime: now,
    renewTime: now,
    leaseTransitions: transitions,
  });
  const claimed = !i.leading && i.lastClaim && i.now < i.lastClaim.expiresAt ? i.lastClaim : undefined;
  if (!i.lease) return claimed ? { action: 'wait', ...claimed } : { action: 'create', spec: fresh(0) };
  const holder = i.lease.holderIdentity ?? '';
  if (holder === i.me) return { action: 'renew', spec: { ...i.lease, leaseDurationSeconds: stated, renewTime: now } };
  const transitions = (i.lease.leaseTransitions ?? 0) + 1;
  const expiresAt = i.observedAt + (i.lease.leaseDurationSeconds ?? i.leaseDurationSeconds) * 1000;
  if (holder === '' && !i.leading) {
    // A release in the form releasedLease and client-go write is the holder's own word that its
    // claim ended: a second, as it states (client-go takes it at once). Any other Lease naming no
    // holder cannot end a claim last seen sooner.
    const until = isRelease(i.lease) ? expiresAt : Math.max(expiresAt, claimed?.expiresAt ?? -Infinity);
    if (i.now < until) return { action: 'wait', holder: '', expiresAt: until };
  }
  if (holder === '') return { action: 'acquire', spec: fresh(transitions), from: '' };
  if (i.now < expiresAt) return { action: 'wait', holder, expiresAt };
  return { action: 'acquire', spec: fresh(transitions), from: holder };
}

/** Whether `spec` is a release as releasedLease writes it: no holder, 1 s, a renewTime. */
export function isRelease(spec: LeaseSpec | undefined): boolean {
  return !!spec && !spec.holderIdentity && spec.leaseDurationSeconds === 1 && !!spec.renewTime;
}

/** The spec that gives the Lease up at shutdown: no holder for 1 s, so a waiting replica takes it within a second. */
export function releasedLease(held: LeaseSpec, now: number): LeaseSpec {
  return { ...held, holderIdentity: null, leaseDurationSeconds: 1, renewTime: iso(now) };
}

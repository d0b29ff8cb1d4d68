// Leader election over a coordination.k8s.io/v1 Lease, as a pure decision: given the Lease
// as last read, when this process last saw it change, and the time, what to write. The
// rules are client-go's leaderelection: a holder's claim lasts leaseDurationSeconds from the
// moment *we observed* its last renewal (our own clock, never the holder's renewTime, so
// clock skew between nodes cannot shorten it); an empty holderIdentity means released.

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
}

export type ElectionStep =
  | { action: 'create'; spec: LeaseSpec }
  | { action: 'renew'; spec: LeaseSpec }
  | { action: 'acquire'; spec: LeaseSpec; from: string }
  | { action: 'wait'; holder: string; expiresAt: number };

const iso = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '000Z');

export function decideLease(i: ElectionInput): ElectionStep {
  const now = iso(i.now);
  const fresh = (transitions: number): LeaseSpec => ({
    holderIdentity: i.me,
    leaseDurationSeconds: i.leaseDurationSeconds,
    acquireTime: now,
    renewTime: now,
    leaseTransitions: transitions,
  });
  if (!i.lease) return { action: 'create', spec: fresh(0) };
  const holder = i.lease.holderIdentity ?? '';
  if (holder === i.me) return { action: 'renew', spec: { ...i.lease, leaseDurationSeconds: i.leaseDurationSeconds, renewTime: now } };
  const transitions = (i.lease.leaseTransitions ?? 0) + 1;
  if (holder === '') return { action: 'acquire', spec: fresh(transitions), from: '' };
  const expiresAt = i.observedAt + (i.lease.leaseDurationSeconds ?? i.leaseDurationSeconds) * 1000;
  if (i.now < expiresAt) return { action: 'wait', holder, expiresAt };
  return { action: 'acquire', spec: fresh(transitions), from: holder };
}

/** The spec that gives the Lease up at shutdown: no holder, so a waiting replica takes it at once. */
export function releasedLease(held: LeaseSpec, now: number): LeaseSpec {
  return { ...held, holderIdentity: null, leaseDurationSeconds: 1, renewTime: iso(now) };
}

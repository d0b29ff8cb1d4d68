// The fence: whether this replica may still write, by its own monotonic clock. A leader's claim
// is known to hold only until the renew deadline after the start of its last successful Lease
// write: the other replicas time the claim from when *they* saw that write, which is after it
// was sent, so they cannot take over before then (the Lease's duration is longer still: the
// rest is the margin for the write in flight). A paused process's monotonic clock keeps running,
// so after SIGSTOP/SIGCONT the fence is shut at the first look, before the election loop has run
// a round: nothing buffered in the meantime (watch events, timers, a pass half done) is written.
// Pure: the times come in (ms, one monotonic clock), the verdict goes out.

export interface FenceState {
  /** Whether the election loop counts this replica as the leader. */
  leading: boolean;
  /** Monotonic ms when the last successful create/renew/acquire of the Lease was sent. */
  renewSentAt: number;
}

/** The monotonic time until which the claim is known to hold (-Infinity when not leading). */
export function fenceUntil(s: FenceState, renewDeadlineSeconds: number): number {
  return s.leading ? s.renewSentAt + renewDeadlineSeconds * 1000 : -Infinity;
}

/** Whether a write may be sent at monotonic time `now`. */
export function fenceOpen(s: FenceState, now: number, renewDeadlineSeconds: number): boolean {
  return now < fenceUntil(s, renewDeadlineSeconds);
}

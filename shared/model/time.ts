import type { Timestamp } from './kube.js';

/** Milliseconds since the epoch, or NaN when the timestamp is missing or unreadable. */
export function toMillis(t: Timestamp | undefined): number {
  if (t === undefined) return Number.NaN;
  return typeof t === 'string' ? Date.parse(t) : t.getTime();
}

/** Whole seconds from `t` to `now`; NaN when `t` is unknown. */
export function secondsSince(t: Timestamp | undefined, now: number): number {
  return Math.floor((now - toMillis(t)) / 1000);
}

/** "3h12m", "45s": durations a person reads in a reason. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'unknown';
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (d > 0) return `${d}d${h}h`;
  if (h > 0) return `${h}h${m}m`;
  if (m > 0) return `${m}m${r}s`;
  return `${r}s`;
}

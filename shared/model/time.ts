import type { Timestamp } from './kube.js';

/** Milliseconds since the epoch, or NaN when the timestamp is missing or unreadable. */
export function toMillis(t: Timestamp | undefined): number {
  if (t === undefined) return Number.NaN;
  if (typeof t !== 'string') return t.getTime();
  return t.length === 20 ? fastRfc3339(t) : Date.parse(t);
}

const digit = (s: string, i: number) => s.charCodeAt(i) - 48;
const two = (s: string, i: number) => digit(s, i) * 10 + digit(s, i + 1);

/**
 * metav1.Time always serializes as "YYYY-MM-DDTHH:MM:SSZ"; reading that shape by hand is
 * several times faster than Date.parse, which matters when deciding over 100,000 pods.
 */
function fastRfc3339(s: string): number {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(19) !== 90) return Date.parse(s);
  const ms = Date.UTC(two(s, 0) * 100 + two(s, 2), two(s, 5) - 1, two(s, 8), two(s, 11), two(s, 14), two(s, 17));
  return Number.isNaN(ms) ? Date.parse(s) : ms;
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

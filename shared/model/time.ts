import type { Timestamp } from './objects.js';

/** Milliseconds since the epoch, or NaN when the timestamp is missing or unreadable. */
export function toMillis(t: Timestamp | undefined): number {
  if (t === undefined) return Number.NaN;
  if (typeof t !== 'string') return t.getTime();
  return t.length === 20 || t.length === 24 ? fastRfc3339(t) : Date.parse(t);
}

const digit = (s: string, i: number) => s.charCodeAt(i) - 48;
const two = (s: string, i: number) => digit(s, i) * 10 + digit(s, i + 1);

/**
 * metav1.Time always serializes as "YYYY-MM-DDTHH:MM:SSZ" (and JavaScript's toISOString adds
 * ".sss"); reading those shapes by hand is several times faster than Date.parse, which matters
 * when deciding over 100,000 pods. Anything else goes to Date.parse.
 */
function fastRfc3339(s: string): number {
  const millis = s.length === 24;
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(s.length - 1) !== 90 || (millis && s.charCodeAt(19) !== 46)) return Date.parse(s);
  const month = two(s, 5);
  const day = two(s, 8);
  const hour = two(s, 11);
  const minute = two(s, 14);
  const second = two(s, 17);
  // Date.UTC rolls "month 13" over into the next year; out-of-range fields must stay invalid.
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59)) return Date.parse(s);
  const ms = Date.UTC(two(s, 0) * 100 + two(s, 2), month - 1, day, hour, minute, second, millis ? two(s, 20) * 10 + digit(s, 22) : 0);
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

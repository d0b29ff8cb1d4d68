import { parseGoDuration } from '../../policy/duration.js';

// The TTL values people already write on pods, read as the tools that defined them read them
// (docs/policy.md "TTL labels and annotations" says where kube-tidy differs). Pure: the pod's
// creation time comes in, an instant or a reason goes out, and no input throws.

/** An instant (epoch ms) and how it was reached, or what is wrong with the value. */
export type Parsed = { ok: true; at: number; how: string } | { ok: false; why: string };

/** The largest instant a JavaScript Date holds: a TTL beyond it is not a time at all. */
const MAX_TIME = 8.64e15;
/** No convention's value is this long; a longer one is refused before any pattern runs. */
const MAX_LENGTH = 64;

const DAY_MS = 86_400_000;
const JANITOR_UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS };

/** The value as a reason quotes it: bounded, so a 256 KiB annotation does not fill a log line. */
export function quote(value: string): string {
  return JSON.stringify(value.length > MAX_LENGTH ? `${value.slice(0, MAX_LENGTH)}…` : value);
}

/**
 * `cleanup.kyverno.io/ttl`: an absolute UTC time `2023-10-04T003000Z` (Go layout
 * `2006-01-02T150405Z`: a label value may not hold a colon) or a date `2023-10-04` (midnight
 * UTC), or a duration counted from the pod's creation: a Go duration (`90s`, `4h`, `1h30m`,
 * `1.5h`) with whole days and weeks allowed in front (`1d`, `2w`, `1d12h`).
 */
export function parseKyvernoTtl(value: string, created: number): Parsed {
  if (value.length > MAX_LENGTH) return { ok: false, why: `${quote(value)} is too long to be a TTL` };
  const duration = kyvernoDuration(value);
  if (duration !== undefined) return fromCreation(created, duration, value);
  let m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (m) return utc(m, value);
  m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (m) return utc(m, value);
  return { ok: false, why: `${quote(value)} is neither a duration (5m, 4h, 1d) nor a time (2023-10-04T003000Z, 2023-10-04)` };
}

/** `janitor/ttl`: a whole number and one unit of s, m, h, d or w, from creation; `forever`: none. */
export function parseJanitorTtl(value: string, created: number): Parsed | 'forever' {
  if (value.length > MAX_LENGTH) return { ok: false, why: `${quote(value)} is too long to be a TTL` };
  if (value.toLowerCase() === 'forever') return 'forever';
  const m = /^(\d+)([smhdw])$/.exec(value);
  if (!m) return { ok: false, why: `${quote(value)} is not a TTL such as 60s, 5m, 8h, 7d or 2w (or forever)` };
  return fromCreation(created, Number(m[1]) * JANITOR_UNIT_MS[m[2]!]!, value);
}

/** `janitor/expires`: `2019-02-25T09:26:14Z`, `2019-02-25T09:26` or `2019-02-25`, all UTC. */
export function parseJanitorExpires(value: string): Parsed {
  if (value.length > MAX_LENGTH) return { ok: false, why: `${quote(value)} is too long to be a time` };
  const m =
    /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/.exec(value) ??
    /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value) ??
    /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return { ok: false, why: `${quote(value)} is not a time such as 2019-02-25T09:26:14Z, 2019-02-25T09:26 or 2019-02-25` };
  return utc(m, value);
}

/** Milliseconds, or undefined: Go's duration text, after any whole weeks and days. */
function kyvernoDuration(value: string): number | undefined {
  // The whole weeks and days in front (possibly none), then the rest, whatever it holds.
  const front = /^(?:\d+[wd])*/.exec(value)?.[0] ?? '';
  let total = 0;
  for (const [, n, unit] of front.matchAll(/(\d+)([wd])/g)) total += Number(n) * (unit === 'w' ? 7 * DAY_MS : DAY_MS);
  const rest = value.slice(front.length);
  if (rest === '') return front === '' ? undefined : total;
  // A sign would make it a time before creation; a label value cannot start with one anyway.
  if (/^[+-]/.test(rest)) return undefined;
  const go = parseGoDuration(rest);
  // parseGoDuration trims; a value with spaces is not what Kyverno reads either.
  return go === undefined || rest.trim() !== rest ? undefined : total + go;
}

function fromCreation(created: number, ms: number, value: string): Parsed {
  if (!Number.isFinite(created)) return { ok: false, why: `${quote(value)} counts from creation, and the pod has no creationTimestamp` };
  const at = created + ms;
  if (!(Math.abs(at) <= MAX_TIME)) return { ok: false, why: `${quote(value)} is out of range` };
  return { ok: true, at, how: `${value} after creation` };
}

/** Year, month, day and optionally hour, minute, second as UTC; a field out of range (Feb 30, 24:00) is refused. */
function utc(m: RegExpExecArray, value: string): Parsed {
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1).map((x) => (x === undefined ? undefined : Number(x)));
  const date = new Date(0);
  date.setUTCFullYear(y!, mo! - 1, d!);
  date.setUTCHours(h, mi, s, 0);
  const fields = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()];
  const wanted = [y, mo, d, h, mi, s];
  if (fields.some((f, i) => f !== wanted[i])) return { ok: false, why: `${quote(value)} is not a valid date and time` };
  return { ok: true, at: date.getTime(), how: `at ${value}` };
}

// When a scheduled function runs next, from the schedules the chart shares with Knative's
// PingSources: five cron fields in UTC (minute hour day-of-month month day-of-week; `*`,
// `*/n`, `a-b`, `a-b/n`, lists; day-of-month and day-of-week OR-ed when both are set, as
// cron does), or `@every <n>s|m|h` for a fixed interval.

export type Schedule = { every: number } | { fields: Set<number>[]; domStar: boolean; dowStar: boolean };

const RANGES: [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

function field(text: string, [min, max]: [number, number], where: string): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) throw new Error(`${where}: "${part}" is not a cron field`);
    const lo = m[1] === '*' ? min : Number(m[2]);
    const hi = m[1] === '*' ? max : m[3] !== undefined ? Number(m[3]) : m[4] ? max : lo;
    const step = m[4] ? Number(m[4]) : 1;
    if (lo < min || hi > max || lo > hi || step < 1) throw new Error(`${where}: "${part}" is outside ${min}-${max}`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

export function parseSchedule(text: string): Schedule {
  const every = /^@every\s+(\d+)(s|m|h)$/.exec(text.trim());
  if (every) {
    const ms = Number(every[1]) * { s: 1_000, m: 60_000, h: 3_600_000 }[every[2] as 's' | 'm' | 'h'];
    if (ms <= 0) throw new Error(`"${text}": the interval must be positive`);
    return { every: ms };
  }
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`"${text}": five cron fields or "@every <n>s|m|h"`);
  const fields = parts.map((p, i) => field(p, RANGES[i]!, `"${text}"`));
  // Sunday is 0 or 7.
  if (fields[4]!.has(7)) fields[4]!.add(0);
  return { fields, domStar: parts[2] === '*', dowStar: parts[4] === '*' };
}

/** The first time strictly after `after` (ms) the schedule fires. */
export function nextRun(s: Schedule, after: number): number {
  if ('every' in s) return after + s.every;
  const [minute, hour, dom, month, dow] = s.fields as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  let t = Math.floor(after / 60_000) * 60_000 + 60_000;
  // Four years of minutes covers every reachable combination (29 February included).
  for (let i = 0; i < 4 * 366 * 24 * 60; i++, t += 60_000) {
    const d = new Date(t);
    if (!minute.has(d.getUTCMinutes()) || !hour.has(d.getUTCHours()) || !month.has(d.getUTCMonth() + 1)) continue;
    const byDom = dom.has(d.getUTCDate());
    const byDow = dow.has(d.getUTCDay());
    const day = s.domStar || s.dowStar ? byDom && byDow : byDom || byDow;
    if (day) return t;
  }
  throw new Error('the schedule never fires');
}

// What the demo shows: a line per thing that happens, as it happens, and a table at the end.

export interface PodRecord {
  namespace: string;
  name: string;
  phase?: string;
  terminalAt?: number;
  goneAt?: number;
  outcome?: string;
  why?: string;
  by?: string;
}

const t0 = Date.now();
const stamp = () => `+${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s`;

export function say(what: string): void {
  process.stdout.write(`${stamp()}  ${what}\n`);
}

export function event(outcome: string, pod: string, why: string): void {
  say(`${outcome.padEnd(13)} ${pod}${why ? `  (${why})` : ''}`);
}

export function seconds(ms: number | undefined): string {
  return ms === undefined ? '-' : `${(ms / 1000).toFixed(2)} s`;
}

export function table(records: PodRecord[]): string {
  const rows = records.map((r) => [
    `${r.namespace}/${r.name}`,
    r.goneAt ? (r.outcome === 'swept' ? 'swept' : r.outcome ?? 'gone') : r.outcome ?? 'untouched',
    r.phase ?? '',
    r.terminalAt && r.goneAt ? seconds(r.goneAt - r.terminalAt) : '-',
    (r.why ?? '').slice(0, 90),
  ]);
  const head = ['POD', 'RESULT', 'PHASE', 'TERMINAL->GONE', 'WHY'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// What the demo shows: a line per thing that happens, as it happens, and a table at the end.

import { eligibleToGone, endedToGone, type PodStory } from './story.js';

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

/** The final table: one row per pod, what kube-tidy did (or why not), by whom, how fast. */
export function table(stories: PodStory[]): string {
  const rows = stories.map((r) => [
    `${r.namespace}/${r.name}`,
    r.result,
    // A removal at eligibility names what acted: podTerminated's timer, or a tick.
    `${r.by ?? ''}${r.due ? ` ${r.due.by}` : ''}`,
    r.strategy ?? '',
    r.phase ? `${r.phase}${r.exitCode === undefined ? '' : ` (exit ${r.exitCode})`}` : '',
    seconds(endedToGone(r)),
    seconds(eligibleToGone(r)),
    r.why.slice(0, 90),
  ]);
  const head = ['POD', 'RESULT', 'BY', 'STRATEGY', 'PHASE', 'ENDED->GONE', 'ELIGIBLE->GONE', 'WHY'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

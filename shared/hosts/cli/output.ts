// How the CLI prints a plan or a run: JSON lines for scripts, an aligned table for people.
// The default follows the terminal, as gh does: a table when stdout is a terminal, JSON lines
// when it is piped or redirected (kubectl prints its table either way; kube-tidy's plan has
// printed JSON lines since it existed, and scripts read them). `-o json|table` decides.

export type Format = 'json' | 'table';

export class FormatError extends Error {}

export function chooseFormat(flag: string | undefined, stdoutIsTTY: boolean): Format {
  if (flag === undefined) return stdoutIsTTY ? 'table' : 'json';
  if (flag === 'json' || flag === 'table') return flag;
  throw new FormatError(`-o "${flag}": expected json or table`);
}

export function jsonLine(row: Record<string, unknown>): string {
  return `${JSON.stringify(row)}\n`;
}

/** Columns padded to their widest cell; the last column is not padded (it may be long). */
export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(head), ...rows.map(line)].join('\n')}\n`;
}

/** What a live plan or run did to one pod, in words: the API server's answer, not a guess. */
export function resultText(r: { outcome: string; action: string; dryRun: boolean; message?: string }): string {
  const verb = r.action === 'delete' ? 'delete' : 'evict';
  switch (r.outcome) {
    case 'deleted':
    case 'evicted':
      return r.dryRun ? `would ${verb}` : r.outcome;
    case 'blocked':
      return `blocked${r.message ? `: ${r.message}` : ''}`;
    case 'gone':
      return 'already gone';
    case 'stale':
      return 'changed since listed, left for next time';
    default:
      return `${r.outcome}${r.message ? `: ${r.message}` : ''}`;
  }
}

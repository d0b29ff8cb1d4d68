// Reading the hand-written tables of the docs back, so a test can hold them to the code they
// describe (test/unit/docs/): a page's table found by its header row, its cells, the code spans
// in a cell.

/** The cells of one table row: split on pipes that are not escaped, `\|` read as a pipe. */
export function cellsOf(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** The body rows of the first table whose header row is `header` (cell for cell); throws when the page has none. */
export function tableRows(markdown: string, header: readonly string[]): string[][] {
  const lines = markdown.split('\n');
  const at = lines.findIndex((l) => l.trim().startsWith('|') && cellsOf(l).join('\0') === header.join('\0'));
  if (at < 0) throw new Error(`no table with the header | ${header.join(' | ')} |`);
  const rows: string[][] = [];
  // The header, then the |---| line, then rows until the first line that is not one.
  for (const line of lines.slice(at + 2)) {
    if (!line.trim().startsWith('|')) break;
    rows.push(cellsOf(line));
  }
  return rows;
}

/** The text of every code span in a cell, in order. */
export const codeSpans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

// The storm's closing table (issue 45's shape): one line per row, each against the ceiling of
// the same run (its first ceiling, the one before any kube-tidy row) and the plain client's CPU
// per DELETE there. Markdown, to copy into docs/benchmarks.md.
import type { Row } from './rows.js';

const round2 = (x: number) => Math.round(x * 100) / 100;

const LABELS: Record<string, string> = {
  ceiling: 'ceiling (plain client)',
  sweep: 'sweep (one tick)',
  eventPath: 'event path, sender anonymous',
  eventPathAuthenticated: 'event path, sender authenticated',
  floor: 'floor (a bare Node receiver: parse, DELETE, answer)',
  ceilingAfter: 'ceiling again (after)',
};

export function stormTable(rows: Partial<Record<string, Row>>, size: { pods: number; failed: number }, inFlight: number): string[] {
  const ceiling = rows.ceiling ?? rows.ceilingAfter;
  const vs = (x: number, base: number | undefined) => (base ? String(round2(x / base)) : '');
  const lines = [
    `| ${size.failed.toLocaleString('en')} Failed of ${size.pods.toLocaleString('en')} pods, ${inFlight} in flight, one run | removals/s | vs ceiling | CPU per removal | vs plain client | API requests per removal | Events written | Failed left |`,
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, r] of Object.entries(rows)) {
    if (!r) continue;
    lines.push(
      `| ${LABELS[name] ?? name} | ${r.removalsPerSecond} | ${vs(r.removalsPerSecond, ceiling?.removalsPerSecond)} | ${r.cpuMsPerRemoval} ms | ${vs(r.cpuMsPerRemoval, ceiling?.cpuMsPerRemoval)} | ${r.requestsPerRemoval} | ${r.eventsWritten} | ${r.failedLeft} |`,
    );
  }
  return lines;
}

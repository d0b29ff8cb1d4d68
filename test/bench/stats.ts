// Order statistics for the benchmark figures: nearest-rank percentiles, rounded for print.

export interface Spread {
  n: number;
  min: number;
  p50: number;
  p99: number;
  max: number;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Nearest-rank percentile of sorted values (p in 0..100). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export function spread(values: number[], digits = 1): Spread {
  const s = [...values].sort((a, b) => a - b);
  return {
    n: s.length,
    min: round(s[0] ?? NaN, digits),
    p50: round(percentile(s, 50), digits),
    p99: round(percentile(s, 99), digits),
    max: round(s.at(-1) ?? NaN, digits),
  };
}

/** A timestamp comparable across processes on one machine, sub-millisecond. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

export function rate(count: number, ms: number): number {
  return Math.round((count / ms) * 1000);
}

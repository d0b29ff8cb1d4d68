// Go's time.Duration text ("1h30m", "90s", "1.5h"), which metav1.Duration fields such as
// DefaultEvictor's minPodAge use in policy files.

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Milliseconds, or undefined when the text is not a Go duration. */
export function parseGoDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  let sign = 1;
  if (s.startsWith('-')) {
    sign = -1;
    pos = 1;
  }
  if (pos >= s.length) return undefined;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    pos = re.lastIndex;
  }
  return sign * total;
}

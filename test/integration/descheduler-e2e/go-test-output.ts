// Reading `go test -v` output (a test binary run with -test.v): each test and subtest from
// its `=== RUN` line to its `--- PASS/FAIL/SKIP: name (1.23s)` line, with the lines printed
// while it ran (tests run one at a time here: no t.Parallel in the descheduler's e2e).
export type GoTestStatus = 'PASS' | 'FAIL' | 'SKIP' | 'NO RESULT';

export interface GoTestResult {
  name: string;
  status: GoTestStatus;
  seconds?: number;
  lines: string[];
}

const RUN = /^=== RUN\s+(\S+)/;
const END = /^\s*--- (PASS|FAIL|SKIP): (\S+) \(([\d.]+)s\)/;

/** Every test and subtest in `output`, in the order they started; one cut off (timeout, panic) has status NO RESULT. */
export function parseGoTestOutput(output: string): GoTestResult[] {
  const results = new Map<string, GoTestResult>();
  const open: GoTestResult[] = [];
  for (const line of output.split('\n')) {
    const run = RUN.exec(line);
    if (run) {
      const result: GoTestResult = { name: run[1]!, status: 'NO RESULT', lines: [] };
      results.set(result.name, result);
      open.push(result);
      continue;
    }
    const end = END.exec(line);
    const ended = end && results.get(end[2]!);
    if (end && ended) {
      Object.assign(ended, { status: end[1] as GoTestStatus, seconds: Number(end[3]) });
      open.splice(open.indexOf(ended), 1);
      continue;
    }
    // A line belongs to the innermost test still running, and to the tests around it.
    for (const t of open) t.lines.push(line);
  }
  return [...results.values()];
}

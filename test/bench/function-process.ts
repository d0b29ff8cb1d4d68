// The benches' function processes (test/harness/function-process.ts), with the `traced`
// lines function-host.ts writes (every API request and answer) collected.
import { fileURLToPath } from 'node:url';
import { FUNCTIONS_SOURCE, startFunctionProcess, type FunctionProcess } from '../harness/function-process.js';

/** The production entry point (package.json "main", from its source). */
export const FUNCTIONS_ENTRY = FUNCTIONS_SOURCE;
/** The same functions with their API requests and answers traced. */
export const TRACED_ENTRY = fileURLToPath(new URL('./function-host.ts', import.meta.url));

export type Trace =
  | { trace: 'kube'; t: number; method: string; url: string }
  | { trace: 'deleted'; t: number; pod: string }
  | { trace: 'answer'; t0: number; t: number; method: string; status: number; outcome?: string; pod?: string };

export interface TracedFunction extends FunctionProcess {
  traces: Trace[];
}

/** Starts a function process, runs `work`, stops the process whatever happens. */
export async function withFunction<T>(target: string, source: string, env: Record<string, string>, work: (fn: TracedFunction) => Promise<T>): Promise<T> {
  const traces: Trace[] = [];
  const fn = await startFunctionProcess(target, source, env, {
    onLine: (line) => {
      if (line.startsWith('{"trace"')) traces.push(JSON.parse(line) as Trace); // not the function's own log lines
    },
  });
  try {
    return await work({ ...fn, traces });
  } finally {
    await fn.stop();
  }
}

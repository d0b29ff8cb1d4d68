// The functions as a user runs them: separate processes started with functions-framework
// from the built package, one target each (test/harness/function-process.ts). Their JSON log
// lines are handed to `onLine`, tagged with the target.
import { FUNCTIONS_BUILT, startFunctionProcess, type FunctionProcess } from '../../../test/harness/function-process.js';

export type { FunctionProcess };

export function startFunction(target: string, env: Record<string, string>, onLine: (entry: Record<string, unknown>) => void): Promise<FunctionProcess> {
  return startFunctionProcess(
    target,
    FUNCTIONS_BUILT,
    { ...env, LOG_LEVEL: 'info' },
    {
      onLine: (line) => {
        try {
          onLine({ target, ...(JSON.parse(line) as Record<string, unknown>) });
        } catch {
          // functions-framework prints a plain banner line at start.
        }
      },
    },
  );
}

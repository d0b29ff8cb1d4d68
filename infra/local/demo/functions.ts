// The functions as a user runs them: separate processes of the production bundle (`npm run
// bundle`, the image's server: node-http.ts behind the front and the drain), one target each,
// as `npm run serve` and the image run them (test/harness/function-process.ts). Their JSON log
// lines are handed to `onLine`, tagged with the target.
import { startBundleProcess, type FunctionProcess } from '../../../test/harness/function-process.js';

export type { FunctionProcess };

export function startFunction(target: string, env: Record<string, string>, onLine: (entry: Record<string, unknown>) => void): Promise<FunctionProcess> {
  return startBundleProcess(
    target,
    { ...env, LOG_LEVEL: 'info' },
    {
      onLine: (line) => {
        try {
          onLine({ target, ...(JSON.parse(line) as Record<string, unknown>) });
        } catch {
          // Not a log line (nothing else is expected on stdout): not the demo's to tell.
        }
      },
    },
  );
}

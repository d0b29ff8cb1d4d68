import { FileTooLargeError, readFileCapped } from '../config/bounded-read.js';
import { loadPolicyText, MAX_POLICY_BYTES } from '../policy/load.js';
import { PolicyError } from '../policy/errors.js';
import type { LoadedPolicy } from '../policy/policy.js';

// Where the policy comes from: a file read once at start, or a ConfigMap read at start and
// re-read whenever it changes. Either way an invalid policy at start stops the process, and a
// later invalid edit keeps the last good policy running (with the problem logged and shown).

export interface PolicySource {
  current(): LoadedPolicy;
  /** The problem with the latest edit when it was refused, for answers and logs. */
  lastError(): string | undefined;
  describe(): string;
  close(): void;
}

export function filePolicySource(path: string, allowUnsupported: boolean): PolicySource {
  let text: string;
  try {
    // Read no further than a policy may be: a mounted path may be a FIFO or a device that never ends.
    text = readFileCapped(path, MAX_POLICY_BYTES);
  } catch (e) {
    if (e instanceof FileTooLargeError) throw new PolicyError([{ path: '', message: `policy file ${path}: ${e.message}` }]);
    throw new PolicyError([{ path: '', message: `cannot read policy file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }]);
  }
  return fixedPolicySource(loadPolicyText(text, { allowUnsupported }), `file ${path}`);
}

/** A policy loaded once by the caller (the CLI reads its own file or ConfigMap). */
export function fixedPolicySource(loaded: LoadedPolicy, described: string): PolicySource {
  return { current: () => loaded, lastError: () => undefined, describe: () => described, close: () => {} };
}

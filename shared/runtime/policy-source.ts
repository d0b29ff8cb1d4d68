import { readFileSync } from 'node:fs';
import { loadPolicyText } from '../policy/load.js';
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
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new PolicyError([{ path: '', message: `cannot read policy file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }]);
  }
  return fixedPolicySource(loadPolicyText(text, { allowUnsupported }), `file ${path}`);
}

/** A policy loaded once by the caller (the CLI reads its own file or ConfigMap). */
export function fixedPolicySource(loaded: LoadedPolicy, described: string): PolicySource {
  return { current: () => loaded, lastError: () => undefined, describe: () => described, close: () => {} };
}

// Reading one object: 404 means "there is none" (already cleaned up, never was, the kind is
// not installed), anything else is an error of the read. Every family reads this way.
import { classifyKubeError, toKubeError } from './errors.js';

/** `read()`'s result, or undefined when the API server answers 404; other failures typed. */
export async function readOrAbsent<T>(what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (e) {
    if (classifyKubeError(e).kind === 'not-found') return undefined;
    throw toKubeError(e, what);
  }
}

// A DELETE tied to the object as it was read (uid and resourceVersion preconditions): how its
// answer reads, the same for every object kube-tidy retires this way (a retired ConfigMap, a
// report). Already gone is fine; written since is `stale`, for the caller to read again.
import { classifyKubeError, toKubeError } from './errors.js';
import type { WriteRefusals } from './write-refusals.js';

export type DeletedAsSeen = 'deleted' | 'gone' | 'stale';

export async function deleteAsSeen(what: string, refusals: WriteRefusals, send: () => Promise<unknown>): Promise<DeletedAsSeen> {
  try {
    await send();
    return 'deleted';
  } catch (e) {
    const kind = classifyKubeError(e).kind;
    if (kind === 'not-found') return 'gone';
    if (kind === 'conflict') return 'stale';
    throw refusals.noted('delete', what, toKubeError(e, what));
  }
}

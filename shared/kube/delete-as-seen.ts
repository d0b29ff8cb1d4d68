// A DELETE tied to the object as it was read (uid and resourceVersion preconditions): how its
// answer reads, the same for every object kube-tidy deletes this way (a retired ConfigMap, a
// report, a custom object: writer.ts deleteObject). Already gone is fine; written since is
// `stale`, for the caller to read again, and counted as a refused write (reason stale), as a
// pod's is; anything else is counted and thrown.
import { classifyKubeError, toKubeError } from './errors.js';
import type { WriteRefusals } from './write-refusals.js';

export type DeletedAsSeen = 'deleted' | 'gone' | 'stale';

export async function deleteAsSeen(what: string, refusals: WriteRefusals, send: () => Promise<unknown>): Promise<DeletedAsSeen> {
  try {
    await send();
    return 'deleted';
  } catch (e) {
    const failure = classifyKubeError(e);
    if (failure.kind === 'not-found') return 'gone';
    if (failure.kind !== 'conflict') throw refusals.noted('delete', what, toKubeError(e, what));
    refusals.note('delete', 'stale', what, failure.message);
    return 'stale';
  }
}

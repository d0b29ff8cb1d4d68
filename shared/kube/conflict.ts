// THE ONE RETRY-ON-CONFLICT loop (client-go's retry.RetryOnConflict): read the stored object,
// decide on it, write at the resourceVersion read; a 409 (someone wrote in between) reads
// again and decides again, a bounded number of times. Shared state written by many instances
// (the brakes' ledger, the sweep plans, the evacuation slots, a remote copy MultiKueue deletes)
// goes through it, and so do evacuation's pass over a pod and its Eviction responder.
import { TransientKubeError } from './errors.js';

export interface RetryOnConflictOptions<R> {
  /** Reads (and decides) at most this many times. */
  attempts: number;
  /** What to answer when every attempt met a conflict (throw `contended(...)`, or a result). */
  exhausted: () => R;
}

/**
 * `read(attempt)`: the stored copy (attempt 0 may answer a cached one); `decideAndWrite`: the
 * answer, or `false` when the write met a conflict (the writer's `writeConfigMap` answers so;
 * a delete answers 'stale'), which reads again. Any error ends it at once.
 */
export async function retryOnConflict<S, R>(
  read: (attempt: number) => Promise<S>,
  decideAndWrite: (seen: S, attempt: number) => Promise<R | false>,
  { attempts, exhausted }: RetryOnConflictOptions<R>,
): Promise<R> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const done = await decideAndWrite(await read(attempt), attempt);
    if (done !== false) return done;
  }
  return exhausted();
}

/** The error for shared state still contended after `attempts`: transient (503, a retry later). */
export function contended(what: string, attempts: number, message: string): TransientKubeError {
  return new TransientKubeError(`${what}: still contended after ${attempts} rounds`, { kind: 'conflict', message, causes: [] });
}

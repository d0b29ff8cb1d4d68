// Acting on a pass's decisions with several writes in flight, without giving up what the
// policy's order means: items are started strictly in order (the oldest pod first, as the
// descheduler does), at most `concurrency` at a time, and once `stop()` says time is up no
// further item is started. What was never started is reported as such, not guessed at.

export interface InOrderResult<R> {
  /** results[i] for every started item; undefined for the ones never started. */
  results: (R | undefined)[];
  started: number;
}

export async function inOrder<T, R>(
  items: readonly T[],
  concurrency: number,
  stop: () => boolean,
  each: (item: T, index: number) => Promise<R>,
): Promise<InOrderResult<R>> {
  const results = new Array<R | undefined>(items.length);
  let next = 0;
  let halted = false;
  const worker = async () => {
    while (!halted && next < items.length) {
      if (stop()) {
        halted = true;
        return;
      }
      const i = next++;
      try {
        results[i] = await each(items[i]!, i);
      } catch (e) {
        // A bug, not a cluster answer (those are results): stop starting work and surface it.
        halted = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return { results, started: next };
}

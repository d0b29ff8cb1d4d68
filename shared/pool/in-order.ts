// Acting on a pass's decisions with several writes in flight, without giving up what the
// policy's order means: items are started strictly in order (the oldest pod first, as the
// descheduler does), at most `concurrency` at a time, and once `stop()` says time is up no
// further item is started. What was never started is reported as such, not guessed at.
// The pool is as-they-come.ts's, with every item known at once.
import { asTheyCome } from './as-they-come.js';

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
  // Indices, not items: each result lands in its item's place. A throw from `each` is a bug,
  // not a cluster answer (those are results): nothing more is started and it surfaces here.
  const fed = asTheyCome<number>(Math.max(1, concurrency), stop, async (i) => void (results[i] = await each(items[i]!, i)));
  for (let i = 0; i < items.length; i++) fed.push(i);
  fed.close();
  const { started } = await fed.done;
  return { results, started };
}

/**
 * Hands results on in their items' order whatever order they finish in: `done(i, r)` records the
 * i-th and tells every result whose turn has come (this one and any finished after it, once all
 * before them are in). Only those finished ahead of one still in flight wait here. For a pass
 * that writes in flight with `inOrder` but tells (a CloudEvent, a summary line) in the plan's order.
 */
export function inTurn<R>(tell: (result: R, index: number) => void): (index: number, result: R) => void {
  const waiting = new Map<number, R>();
  let next = 0;
  return (index, result) => {
    waiting.set(index, result);
    for (; waiting.has(next); next++) {
      const r = waiting.get(next)!;
      waiting.delete(next);
      tell(r, next);
    }
  };
}

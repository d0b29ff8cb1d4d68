// How many requests an operation sent to the API server, counted where they leave (the
// client middleware, clients.ts), not by hand beside each call: every request counts once as
// it is sent, retries after throttling, Events and the brakes' ledger included, and a write
// that DRY_RUN kept from being sent does not count. An operation opens a tally around its
// work; the tally follows its async calls (AsyncLocalStorage), so concurrent operations in one
// process (a standalone replica's events, two passes) keep separate counts, and a request made
// inside a nested tally counts in every tally around it (a pass's ledger requests are also the
// pass's requests).
import { AsyncLocalStorage } from 'node:async_hooks';

export class RequestTally {
  /** Requests sent while this tally (or one inside it) was open. */
  sent = 0;
  constructor(readonly outer?: RequestTally) {}
}

const open = new AsyncLocalStorage<RequestTally>();

/** Runs `work` with a fresh tally open, inside whatever tally is already open. */
export function tallied<T>(work: (tally: RequestTally) => Promise<T>): Promise<T> {
  const tally = new RequestTally(open.getStore());
  return open.run(tally, () => work(tally));
}

/** One request sent: counted in the open tally and every tally around it. */
export function countRequestSent(): void {
  for (let t = open.getStore(); t; t = t.outer) t.sent += 1;
}

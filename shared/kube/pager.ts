// THE ONE PAGER: every paginated LIST kube-tidy makes goes through `pages` (pods:
// list.ts; MultiKueue's job kinds and Workloads: `listEverything`). It sends limit/continue,
// and recovers when a continue token expires (410 Expired, after etcd compacted the snapshot
// the pages were read from), in one of two ways:
//
// - 'continue-inconsistent': go on with the API server's own "inconsistent" token and mark
//   the pages from there on. For a sweep that handles each page as it comes: restarting would
//   see (and count against limits) the pages already handled, and every write re-checks the
//   object anyway. Without such a token the LIST fails as transient.
// - 'restart-full': one full LIST without limit/continue, as client-go's pager does
//   (FullListIfExpired). For a caller that collects every item and draws conclusions from
//   their absence (an orphan sweep): a page from a newer snapshot can miss an object created
//   since, and "not listed" must mean "not there". The restarted list is page 1 again.
//
// Its requests are counted where they leave the client (request-tally.ts), a LIST the API
// server throttled and that was sent again included, not page by page here.
import { classifyKubeError, toKubeError } from './errors.js';
import { tallied } from './request-tally.js';

/** What a LIST answers: typed lists say `_continue`, raw custom-object lists `continue`. */
export interface RawList<T> {
  items?: T[];
  metadata?: { _continue?: string; continue?: string; remainingItemCount?: number; resourceVersion?: string };
}

/** One request: `limit` undefined means a full list (the 'restart-full' recovery). */
export type FetchPage<T> = (page: { limit?: number; _continue?: string }) => Promise<RawList<T>>;

export type OnExpired = 'continue-inconsistent' | 'restart-full';

export interface PagerOptions {
  /** For error messages: "list pods in ns". */
  what: string;
  /** Page size; default 500 (kubectl's). */
  limit?: number;
  onExpired: OnExpired;
  /** Go on from this continue token (a sweep resuming the list an earlier tick did not finish, cleanup/io/carry.ts) rather than from the start. */
  from?: string;
}

export interface Page<T> {
  items: T[];
  /** 1 for the first page, and again for the full list after a restart. */
  page: number;
  /** From here on the pages come from a newer snapshot than the first ('continue-inconsistent'). */
  inconsistent: boolean;
  /** This page is the full list that replaced the pages before it ('restart-full'). */
  restarted: boolean;
  /** The server's estimate of items still to come, when it gives one. */
  remainingItemCount?: number;
  /** The list's resourceVersion as this page gives it (a watch of what was listed starts there). */
  resourceVersion?: string;
  /** The continue token of the page after this one (none: this was the last). */
  next?: string;
}

/** A 410 answered three times in a row with a fresh inconsistent token: the server is not well. */
const EXPIRED_IN_A_ROW = 3;

/** Always yields at least one page (possibly empty): an empty list is a page too. */
export async function* pages<T>(fetch: FetchPage<T>, opts: PagerOptions): AsyncGenerator<Page<T>, void, undefined> {
  const { what, limit = 500, onExpired } = opts;
  let token: string | undefined = opts.from;
  let page = 0;
  let inconsistent = false;
  let restarted = false;
  let full = false;
  let expiredInARow = 0;
  for (;;) {
    let list: RawList<T>;
    try {
      list = await fetch(full ? {} : { limit, _continue: token });
    } catch (error) {
      const failure = classifyKubeError(error);
      if (token && failure.kind === 'expired') {
        // A fresh inconsistent token reads the latest state and cannot expire at once; the
        // bound only guards against a server that keeps answering 410.
        if (onExpired === 'continue-inconsistent' && failure.continueToken && expiredInARow < EXPIRED_IN_A_ROW) {
          expiredInARow += 1;
          token = failure.continueToken;
          inconsistent = true;
          continue;
        }
        // A full list has no token, so this happens at most once.
        if (onExpired === 'restart-full') {
          token = undefined;
          full = restarted = true;
          page = 0;
          continue;
        }
      }
      throw toKubeError(error, `${what} (page ${page + 1})`);
    }
    page += 1;
    expiredInARow = 0;
    token = full ? undefined : list.metadata?._continue || list.metadata?.continue || undefined;
    const remaining = list.metadata?.remainingItemCount;
    const rv = list.metadata?.resourceVersion;
    yield {
      items: list.items ?? [],
      page,
      inconsistent,
      restarted,
      ...(remaining === undefined ? {} : { remainingItemCount: remaining }),
      ...(rv ? { resourceVersion: rv } : {}),
      ...(token ? { next: token } : {}),
    };
    if (!token) return;
  }
}

/**
 * Every item, 'restart-full' on an expired token: a consistent snapshot or an error.
 * `requests`: those the list sent to the API server (its own tally), retries included.
 * `keep`: what to hold of each item, applied page by page as the pages come, so a caller that
 * needs a few fields of every object never holds the objects themselves (issue 27: the orphan
 * sweep lists every Job of a worker); an item it maps to undefined is left out.
 */
export function listEverything<T>(fetch: FetchPage<T>, opts: Omit<PagerOptions, 'onExpired'>): Promise<Everything<T>>;
export function listEverything<T, R>(fetch: FetchPage<T>, opts: Omit<PagerOptions, 'onExpired'>, keep: (item: T) => R | undefined): Promise<Everything<R>>;
export function listEverything<T, R>(
  fetch: FetchPage<T>,
  opts: Omit<PagerOptions, 'onExpired'>,
  keep: (item: T) => R | undefined = (item) => item as unknown as R,
): Promise<Everything<R>> {
  return tallied(async (tally) => {
    let items: R[] = [];
    let resourceVersion: string | undefined;
    for await (const p of pages(fetch, { ...opts, onExpired: 'restart-full' })) {
      if (p.page === 1) items = [];
      for (const item of p.items) {
        const kept = keep(item);
        if (kept !== undefined) items.push(kept);
      }
      // The pager's hold on this page (its last answer, while the next is read) is let go too.
      p.items.length = 0;
      // The last page's: with a consistent snapshot every page says the same; after a restart, the full list's.
      resourceVersion = p.resourceVersion ?? resourceVersion;
    }
    return { items, requests: tally.sent, ...(resourceVersion ? { resourceVersion } : {}) };
  });
}

export interface Everything<T> {
  items: T[];
  requests: number;
  resourceVersion?: string;
}

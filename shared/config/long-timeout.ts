// Timers for durations a user or a policy gives. Node's setTimeout holds at most 2^31-1 ms
// (about 24.8 days) and fires a longer delay after 1 ms (a TimeoutOverflowWarning): a valid Go
// duration such as `--descheduling-interval 720h` would run a cycle every millisecond. Go's
// timers hold any time.Duration, so where kube-tidy reads a peer's duration it waits the whole of
// it: one capped timer after another until the time is spent (counted by the delays, not the wall
// clock, as Go's monotonic timers are not moved by a clock step). Every timer whose delay comes
// from configuration, flags, a policy or a peer's answer goes through here.

/** The longest delay setTimeout honours. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export interface LongTimeout {
  clear(): void;
}

/** The timer functions, the process's by default; a test may give its own to see each step. */
export interface TimerFns {
  set(fn: () => void, ms: number): unknown;
  clear(timer: unknown): void;
}

const nodeTimers: TimerFns = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (t) => clearTimeout(t as NodeJS.Timeout),
};

/**
 * Calls `fn` once `ms` have passed, however long (Infinity: never). A delay that is not a
 * positive number fires at once, as setTimeout's. `unref`: the timer does not keep the process up.
 */
export function setLongTimeout(fn: () => void, ms: number, o: { unref?: boolean; timers?: TimerFns } = {}): LongTimeout {
  const timers = o.timers ?? nodeTimers;
  let left = ms > 0 ? ms : 0;
  let timer: unknown;
  let cleared = false;
  const step = () => {
    const now = Math.min(left, MAX_TIMEOUT_MS);
    left -= now;
    timer = timers.set(() => {
      if (cleared) return;
      if (left > 0) step();
      else fn();
    }, now);
    if (o.unref) (timer as { unref?: () => void } | undefined)?.unref?.();
  };
  step();
  return {
    clear: () => {
      cleared = true;
      timers.clear(timer);
    },
  };
}

/** Calls `fn` every `ms`, however long (setInterval fires every millisecond past 2^31-1 ms). */
export function setLongInterval(fn: () => void, ms: number, o: { unref?: boolean; timers?: TimerFns } = {}): LongTimeout {
  let current: LongTimeout | undefined;
  let cleared = false;
  const next = () => {
    current = setLongTimeout(
      () => {
        if (cleared) return;
        next();
        fn();
      },
      ms,
      o,
    );
  };
  next();
  return {
    clear: () => {
      cleared = true;
      current?.clear();
    },
  };
}

/** Resolves once `ms` have passed, or at once when `signal` aborts (never rejects). */
export function sleepLong(ms: number, signal?: AbortSignal, o: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      t.clear();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setLongTimeout(done, ms, o);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** AbortSignal.timeout for any delay (its own timer overflows past 2^31-1 ms and aborts at once). */
export function timeoutSignal(ms: number): AbortSignal {
  if (ms <= MAX_TIMEOUT_MS) return AbortSignal.timeout(ms);
  const c = new AbortController();
  setLongTimeout(() => c.abort(new DOMException(`The operation was aborted due to timeout`, 'TimeoutError')), ms, { unref: true });
  return c.signal;
}

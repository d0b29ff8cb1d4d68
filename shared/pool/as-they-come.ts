// Writes started as their items arrive rather than once all of them are known: a pass's
// early deletes (cleanup/io/stages/schedules.ts, issue 27) go out while later pages are still being read.
// Up to `concurrency` at once, started in the order they came; once `stop()` says time is up
// none is started, and what was never started is handed back as it is, not guessed at (the
// pass hands it on to its next tick). The queue holds only what is not yet started.

export interface Fed<T> {
  /** One more item; started at once if fewer than `concurrency` are in flight. */
  push(item: T): void;
  /** No more items: `done` settles once the last one started has ended. */
  close(): void;
  /** Items pushed and not yet started. */
  readonly pending: number;
  /** Resolves once at most `n` items wait to be started, or none ever will be (stopped, or a failure): a producer's back-pressure. */
  below(n: number): Promise<void>;
  /** How many were started, and the items never started (in their order); rejects with the first exception `each` threw (a bug, not a cluster answer). */
  readonly done: Promise<{ started: number; left: T[] }>;
}

export function asTheyCome<T>(concurrency: number, stop: () => boolean, each: (item: T) => Promise<void>): Fed<T> {
  const queue: (T | undefined)[] = [];
  let head = 0;
  let running = 0;
  let started = 0;
  let halted = false;
  let closed = false;
  let failure: { error: unknown } | undefined;
  const waiters: { n: number; wake: () => void }[] = [];
  const wakeWaiters = () => {
    for (let i = waiters.length - 1; i >= 0; i--)
      if (halted || queue.length - head <= waiters[i]!.n) {
        waiters[i]!.wake();
        waiters.splice(i, 1);
      }
  };
  let settle!: (v: { started: number; left: T[] }) => void;
  let fail!: (e: unknown) => void;
  const done = new Promise<{ started: number; left: T[] }>((resolve, reject) => ((settle = resolve), (fail = reject)));
  // Awaited by the caller once it closes the feed; until then a failure must not count as unhandled.
  done.catch(() => {});
  const finishIfDone = () => {
    if (!closed || running > 0 || (!halted && head < queue.length)) return;
    if (failure) fail(failure.error);
    else settle({ started, left: queue.slice(head) as T[] });
  };
  const worker = async () => {
    running++;
    try {
      while (!halted && head < queue.length) {
        if (stop()) {
          halted = true;
          break;
        }
        const item = queue[head] as T;
        queue[head++] = undefined; // let the item go once started
        started++;
        if (waiters.length) wakeWaiters();
        // What was started is dropped from the front now and then: the queue holds the not-yet-started only.
        if (head >= 1024 && head * 2 >= queue.length) {
          queue.splice(0, head);
          head = 0;
        }
        await each(item);
      }
    } catch (e) {
      halted = true;
      failure ??= { error: e };
    } finally {
      running--;
      wakeWaiters();
      finishIfDone();
    }
  };
  return {
    push(item) {
      if (closed) throw new Error('asTheyCome: push after close');
      queue.push(item);
      if (!halted && running < concurrency) void worker();
    },
    close() {
      closed = true;
      finishIfDone();
    },
    get pending() {
      return queue.length - head;
    },
    below(n) {
      if (halted || queue.length - head <= n) return Promise.resolve();
      return new Promise<void>((wake) => waiters.push({ n, wake }));
    },
    done,
  };
}

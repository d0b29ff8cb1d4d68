// A bounded work queue that keeps items with the same key in order (one at a time per key)
// and runs items with different keys in parallel, up to `concurrency`.
//
// When full, the oldest waiting item is dropped (and reported through onDrop) rather than
// stopping the watch: a stopped watch only moves the loss to the API server (its
// resourceVersion expires, the bridge re-lists, the changes in between are never seen) and
// hides it; dropping here keeps the watch current, names each lost event in the log, and
// for cleanup the newest state of an object is the one worth deciding on.

export interface KeyedQueueOptions<T> {
  concurrency: number;
  capacity: number;
  handle: (item: T) => Promise<void>;
  onDrop?: (item: T) => void;
}

export class KeyedQueue<T> {
  // Waiting items in arrival order. The first waiting item of a key is its oldest, so taking
  // the first item whose key is idle keeps each key's order. Capacity bounds the scan.
  private readonly waiting: { key: string; item: T }[] = [];
  private readonly busy = new Set<string>();
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly o: KeyedQueueOptions<T>) {
    if (o.concurrency < 1 || o.capacity < 1) throw new RangeError('concurrency and capacity must be at least 1');
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  get runningCount(): number {
    return this.busy.size;
  }

  push(key: string, item: T): void {
    if (this.waiting.length >= this.o.capacity) {
      const dropped = this.waiting.shift();
      if (dropped) this.o.onDrop?.(dropped.item);
    }
    this.waiting.push({ key, item });
    this.pump();
  }

  /** Resolves once nothing is waiting or running. */
  idle(): Promise<void> {
    if (this.waiting.length === 0 && this.busy.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Removes every waiting item (not the running ones) and returns them. */
  clear(): T[] {
    const items = this.waiting.splice(0).map((w) => w.item);
    this.pump();
    return items;
  }

  private pump(): void {
    while (this.busy.size < this.o.concurrency) {
      const i = this.waiting.findIndex((w) => !this.busy.has(w.key));
      if (i < 0) break;
      const [next] = this.waiting.splice(i, 1);
      if (!next) break;
      this.busy.add(next.key);
      void this.run(next.key, next.item);
    }
    if (this.waiting.length === 0 && this.busy.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async run(key: string, item: T): Promise<void> {
    try {
      await this.o.handle(item);
    } catch {
      // The handler reports its own failures; one bad item must not stall its key.
    } finally {
      this.busy.delete(key);
      this.pump();
    }
  }
}

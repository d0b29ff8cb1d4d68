// The process's outbox for kube-tidy's own CloudEvents. A removal must never wait for, or fail
// because of, a notification: `emit` is synchronous, never throws and only appends to a
// bounded queue; a few sends run in the background, each with a timeout, and none is retried.
// What cannot be sent is counted (kube_tidy_events_out_total{result="dropped"|"failed"}), never
// kept: a full queue drops the new event, a failed send drops that event and opens a short "sink
// down" period in which every event (queued or new) is dropped at once, so a sink that is down
// or black-holed costs a counter, not time or memory. `flush(maxMs)` is awaited at the end of
// every request (serve/request-done.ts requestDone), so a serverless instance sends before it is
// frozen, for at most maxMs, and not at all while the sink is down; a flush that used its whole
// cap (a slow sink) makes the next ones return at once for the sink-down period (the sends go on
// in the background), so a slow sink delays one answer per period, not every answer.
//
// Order: events start in the order emitted; one that shares a key (its pods' subjects) with an
// event in flight waits for it, and a barrier (a pass.completed) waits for everything before it,
// so a receiver sees each pod's events in order and a pass's summary after its decisions.
import { MetricsRecorder } from '../metrics/recorder.js';
import type { OutEvent } from './types.js';

/** Sends one event; rejects when it was not accepted. `signal` aborts it at the timeout. */
export type Send = (event: OutEvent, signal: AbortSignal) => Promise<void>;

export interface OutboxSettings {
  buffer: number;
  inFlight: number;
  sendTimeoutMs: number;
  sinkDownMs: number;
}

export interface EmitOptions {
  /** What must not overtake each other (a pod's subject): an event waits for one in flight with a key in common. */
  keys?: readonly string[];
  /** Sent only once everything emitted before it is done (a pass's summary). */
  barrier?: boolean;
}

interface Queued {
  event: OutEvent;
  keys: readonly string[];
  barrier: boolean;
}

export interface OutboxStats {
  sent: number;
  failed: number;
  dropped: number;
  queued: number;
  inFlight: number;
}

export class Outbox {
  private queue: Queued[] = [];
  private head = 0;
  private running = 0;
  private readonly busy = new Map<string, number>();
  private downUntil = 0;
  private slowUntil = 0;
  private idle: (() => void)[] = [];
  readonly stats = { sent: 0, failed: 0, dropped: 0 };

  constructor(
    private readonly settings: OutboxSettings,
    private readonly send: Send,
    private readonly now: () => number = Date.now,
    /** Where sent, failed and dropped events are counted (kube_tidy_events_out_total): the host's recorder. */
    private readonly metrics: MetricsRecorder = MetricsRecorder.off(),
  ) {}

  /** Whether a send failed less than the sink-down period ago: events are dropped at once. */
  get down(): boolean {
    return this.now() < this.downUntil;
  }

  get queued(): number {
    return this.queue.length - this.head;
  }

  snapshot(): OutboxStats {
    return { ...this.stats, queued: this.queued, inFlight: this.running };
  }

  emit(event: OutEvent, opts: EmitOptions = {}): void {
    if (this.down || this.queued >= this.settings.buffer) return this.count(event.type, 'dropped');
    this.queue.push({ event, keys: opts.keys ?? [], barrier: opts.barrier === true });
    this.pump();
  }

  /** Resolves once nothing is queued or in flight, the sink is down, or `maxMs` has passed. */
  flush(maxMs: number): Promise<void> {
    if (this.settled() || maxMs <= 0 || this.now() < this.slowUntil) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.idle = this.idle.filter((f) => f !== done);
        if (!this.settled()) this.slowUntil = this.now() + this.settings.sinkDownMs;
        resolve();
      }, maxMs);
      timer.unref?.();
      this.idle.push(done);
    });
  }

  private settled(): boolean {
    return (this.queued === 0 && this.running === 0) || this.down;
  }

  private count(type: string, result: 'sent' | 'failed' | 'dropped', n = 1): void {
    this.stats[result] += n;
    this.metrics.record('eventsOut', n, { type, result });
  }

  private pump(): void {
    if (this.down) this.dropQueued();
    while (this.running < this.settings.inFlight && this.queued > 0) {
      const next = this.queue[this.head]!;
      if (next.barrier && this.running > 0) break;
      if (next.keys.some((k) => this.busy.has(k))) break;
      this.queue[this.head++] = undefined as unknown as Queued;
      // Compacted now and then, so a long-lived queue does not keep its sent prefix.
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      void this.start(next);
    }
    if (this.settled()) this.wake();
  }

  private async start(q: Queued): Promise<void> {
    this.running++;
    for (const k of q.keys) this.busy.set(k, (this.busy.get(k) ?? 0) + 1);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${this.settings.sendTimeoutMs} ms`)), this.settings.sendTimeoutMs);
    timer.unref?.();
    try {
      // The timeout holds even for a sender that ignores the signal.
      const aborted = new Promise<never>((_, reject) => abort.signal.addEventListener('abort', () => reject(abort.signal.reason as Error), { once: true }));
      await Promise.race([this.send(q.event, abort.signal), aborted]);
      this.count(q.event.type, 'sent');
    } catch {
      this.count(q.event.type, 'failed');
      this.downUntil = this.now() + this.settings.sinkDownMs;
    } finally {
      clearTimeout(timer);
      this.running--;
      for (const k of q.keys) {
        const n = this.busy.get(k)! - 1;
        if (n) this.busy.set(k, n);
        else this.busy.delete(k);
      }
      this.pump();
    }
  }

  /** The sink is down: what waits is dropped (counted by type), not kept for later. */
  private dropQueued(): void {
    if (this.queued === 0) return;
    const byType = new Map<string, number>();
    for (let i = this.head; i < this.queue.length; i++) {
      const t = this.queue[i]!.event.type;
      byType.set(t, (byType.get(t) ?? 0) + 1);
    }
    this.queue = [];
    this.head = 0;
    for (const [t, n] of byType) this.count(t, 'dropped', n);
  }

  private wake(): void {
    const waiting = this.idle;
    this.idle = [];
    for (const f of waiting) f();
  }
}

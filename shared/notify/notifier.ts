// A process's CloudEvents out: the outbox its host built at start (from the environment the
// process checked then: runtime/config.ts; the CLI's from its own) and the clock events are
// stamped with. Carried by every family's handle; nothing here is kept by the module. Events
// off (no sink set): `emit` is a no-op, nothing is counted, and the hooks build nothing (`on`).
import { randomUUID } from 'node:crypto';
import type { Stamp } from './build.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import { readEventsConfig, type EventsSettings } from './config.js';
import { Outbox, type EmitOptions, type Send } from './outbox.js';
import { senderFor } from './sink.js';
import type { OutEvent } from './types.js';

export class Notifier {
  private readonly outbox: Outbox | undefined;

  /** `send` replaces the sink's sender (tests). */
  constructor(
    /** The settings in force (a pass's batch size), when events are on. */
    readonly settings: EventsSettings | undefined,
    private readonly now: () => number = Date.now,
    send?: Send,
    /** Where the outbox counts what it sent, failed or dropped: the host's recorder (none: not counted). */
    metrics?: MetricsRecorder,
  ) {
    this.outbox = settings ? new Outbox(settings, send ?? senderFor(settings.sink), Date.now, metrics) : undefined;
  }

  /** From `env` (EVENTS_SINK, K_SINK, EVENTS_TOPIC...). Throws ConfigError on a bad setting. */
  static fromEnv(env: NodeJS.ProcessEnv, now?: () => number, send?: Send, metrics?: MetricsRecorder): Notifier {
    return new Notifier(readEventsConfig(env), now, send, metrics);
  }

  /** Events off: nothing built, sent or counted. */
  static off(): Notifier {
    return new Notifier(undefined);
  }

  /** Whether events go anywhere: hooks skip building their data when not. */
  get on(): boolean {
    return this.outbox !== undefined;
  }

  /** A fresh id, the time now by this process's clock and this installation's source. */
  stamp(): Stamp {
    return { id: randomUUID(), time: this.now(), source: this.settings?.source ?? 'kube-tidy' };
  }

  /** Queues `event` for the sink. Never waits, never throws. */
  emit(event: OutEvent, opts?: EmitOptions): void {
    try {
      this.outbox?.emit(event, opts);
    } catch {
      // A notification is never the removal's problem.
    }
  }

  /** At the end of a request: sends what is queued, for at most `maxMs` (EVENTS_FLUSH_MS; at once while the sink is down or slow). Never throws. */
  async flush(maxMs?: number): Promise<void> {
    try {
      if (this.outbox) await this.outbox.flush(maxMs ?? this.settings!.flushMs);
    } catch {
      // As emit.
    }
  }

  /** The outbox's counts (tests, the CLI's summary). */
  stats() {
    return this.outbox?.snapshot();
  }
}

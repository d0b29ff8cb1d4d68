// The one outbox of this process, set up from the environment on first use (the process
// checked the same variables at start: runtime/config.ts), or by `configureEvents` (tests,
// programs with settings of their own). No sink configured: `emit` is a no-op, nothing is
// counted, and the hooks build nothing (`eventsOn`).
import { randomUUID } from 'node:crypto';
import type { Stamp } from './build.js';
import { readEventsConfig, type EventsSettings } from './config.js';
import { Outbox, type EmitOptions, type Send } from './outbox.js';
import { senderFor } from './sink.js';
import type { OutEvent } from './types.js';

let current: { settings: EventsSettings; outbox: Outbox } | null | undefined;

function active(): { settings: EventsSettings; outbox: Outbox } | null {
  if (current === undefined) {
    try {
      configureEvents(process.env);
    } catch {
      // Checked at start (runtime/config.ts): a process that got this far without valid settings sends nothing.
      current = null;
    }
  }
  return current ?? null;
}

/**
 * Sets the process's outbox up from `env` (or turns it off when no sink is set); `send`
 * replaces the sink's sender (tests). Throws ConfigError on a bad setting. What the previous
 * outbox still holds is left to finish on its own.
 */
export function configureEvents(env: NodeJS.ProcessEnv, send?: Send): EventsSettings | undefined {
  const settings = readEventsConfig(env);
  current = settings ? { settings, outbox: new Outbox(settings, send ?? senderFor(settings.sink)) } : null;
  return settings;
}

/** Whether events go anywhere: hooks skip building their data when not. */
export function eventsOn(): boolean {
  return active() !== null;
}

/** The settings in force (a pass's batch size), when events are on. */
export function eventsSettings(): EventsSettings | undefined {
  return active()?.settings;
}

/** A fresh id, the time now and this installation's source. */
export function stamp(): Stamp {
  return { id: randomUUID(), time: Date.now(), source: active()?.settings.source ?? 'kube-tidy' };
}

/** Queues `event` for the sink. Never waits, never throws. */
export function emit(event: OutEvent, opts?: EmitOptions): void {
  try {
    active()?.outbox.emit(event, opts);
  } catch {
    // A notification is never the removal's problem.
  }
}

/** At the end of a request: sends what is queued, for at most `maxMs` (EVENTS_FLUSH_MS; at once while the sink is down or slow). Never throws. */
export async function flushEvents(maxMs?: number): Promise<void> {
  try {
    if (current) await current.outbox.flush(maxMs ?? current.settings.flushMs);
  } catch {
    // As emit.
  }
}

/** The outbox's counts (tests, the CLI's summary). */
export function outboxStats() {
  return current?.outbox.snapshot();
}

// A pass's decisions out as CloudEvents (docs/observing.md "Decisions as CloudEvents"; notify/pods.ts):
// each result as it is handed on, then the pass's summary counts as its pass.completed. The one
// place a pass builds its events; nothing is built when no sink is set.
import type { Notifier } from '../../../notify/notifier.js';
import type { Origin } from '../../../notify/types.js';
import { passEvents } from '../../../notify/pods.js';
import type { PassSummary } from '../pass-summary.js';
import type { PassObserver } from './observer.js';

export function cloudEventsOf(notifier: Notifier, origin: Origin, pass: string, perPod?: number): PassObserver | undefined {
  const out = passEvents(notifier, origin, pass, perPod);
  if (!out) return undefined;
  return {
    onResult: (result, decision) => out.decided(decision, result),
    onEnd: (s) => out.completed(passCompletion(s)),
  };
}

/** A pass's summary counts for its pass.completed event: never the per-pod lists. */
function passCompletion(s: PassSummary) {
  const { results: _results, keptPods: _kept, pass: _pass, dueSoon, failures, durationMs, dryRun, ...counts } = s;
  const outcome = failures.transient + failures.refused ? 'incomplete' : 'complete';
  return { dryRun, outcome, durationMs, failures, counts: { ...counts, ...(dueSoon ? { dueSoon: dueSoon.length } : {}) } };
}

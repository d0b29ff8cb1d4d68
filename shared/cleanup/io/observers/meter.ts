// What a pass cost: its API server requests (counted as they leave the client, the end's Events
// and ledger writes included), the throttling it met and its duration. Subscribed after every
// observer that sends requests at the end, and before the ones that tell the summary.
import type { RequestTally } from '../../../kube/request-tally.js';
import type { CleanupHandle } from '../../handle.js';
import type { PassSummary } from '../pass-summary.js';
import type { PassObserver } from './observer.js';

export function meterOf(h: Pick<CleanupHandle, 'reader' | 'now'>, tally: RequestTally, started: number): PassObserver {
  const throttle = h.reader.throttle;
  const before = { throttled: throttle.throttled, waited: throttle.waitedMs };
  return {
    onEnd(s: PassSummary) {
      s.requests = tally.sent;
      s.throttled = throttle.throttled - before.throttled;
      s.throttleWaitMs = Math.round(throttle.waitedMs - before.waited);
      s.durationMs = h.now() - started;
    },
  };
}

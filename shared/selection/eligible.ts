import type { Pod } from '../model/objects.js';
import { toMillis } from '../model/time.js';
import { isTerminal } from '../model/pod.js';
import type { Gate } from '../evictor/gate.js';
import { parseGoDuration } from '../policy/duration.js';
import type { Profile } from '../policy/policy.js';
import type { PodMatcher } from '../strategies/lifecycle/matcher.js';
import type { Eligible } from './decision.js';

/**
 * When a pod no strategy takes now would be taken, if nothing about it changes but the
 * clock: the earliest instant over the strategy runs at which the run's matcher selects it
 * (an age, a time since a condition's transition) and the gate lets it pass (DefaultEvictor's
 * minPodAge is the gate's only clock). Limits are left out: they depend on what else happens
 * by then. Undefined when no run would ever take it on time alone.
 */
export function eligibleAt(
  pod: Pod,
  now: number,
  runs: readonly { profile: Profile; strategy: { name: string }; matcher: PodMatcher }[],
  gateOf: (profile: Profile) => Gate,
): Eligible | undefined {
  let best: Eligible | undefined;
  const action = isTerminal(pod) ? 'delete' : 'evict';
  for (const { profile, strategy, matcher } of runs) {
    const ready = matcher.readyAt(pod, now);
    if (ready === undefined) continue;
    let at = Math.max(ready, now);
    const gate = gateOf(profile);
    if (gate(pod, action, at) !== undefined) {
      // Kept at that instant: only minPodAge may let it pass later.
      const minAge = profile.evictor.minPodAge === undefined ? undefined : parseGoDuration(profile.evictor.minPodAge);
      const started = toMillis(pod.status?.startTime);
      if (minAge === undefined || Number.isNaN(started) || started + minAge <= at) continue;
      at = started + minAge;
      if (gate(pod, action, at) !== undefined) continue;
    }
    // Only what waits on time: a pod selectable now was decided (or kept) by decide itself.
    if (at <= now) continue;
    if (!best || at < best.at) {
      best = {
        namespace: pod.metadata.namespace ?? '',
        name: pod.metadata.name ?? '',
        uid: pod.metadata.uid ?? '',
        profile: profile.name,
        strategy: strategy.name,
        at,
      };
    }
  }
  return best;
}

import type { Policy } from '../policy/policy.js';
import { STRATEGIES } from '../strategies/registry.js';
import type { LifecycleCriteria } from '../strategies/lifecycle/criteria.js';
import type { StrategyDefinition } from '../strategies/types.js';

const PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;

/** The phases a strategy can select at all, or undefined when any phase may match. */
function phasesOf(c: LifecycleCriteria): Set<string> | undefined {
  let phases: Set<string> | undefined = c.phases ? new Set(c.phases) : undefined;
  // `states` is required; when every entry is a phase, the pod must be in one of them.
  if (c.states?.length && c.states.every((s) => (PHASES as readonly string[]).includes(s))) {
    const fromStates = new Set(c.states);
    phases = phases ? new Set([...phases].filter((p) => fromStates.has(p))) : fromStates;
  }
  return phases;
}

/** The phases some strategy of the policy can select, or undefined when any phase may match. */
function selectablePhases(policy: Policy): Set<string> | undefined {
  const wanted = new Set<string>();
  for (const profile of policy.profiles) {
    for (const s of profile.strategies) {
      const phases = phasesOf((STRATEGIES[s.name] as StrategyDefinition).criteria(s.args));
      if (!phases) return undefined;
      for (const p of phases) wanted.add(p);
    }
  }
  return wanted;
}

/**
 * A `status.phase` field selector that lets a sweep's LIST skip pods no strategy could
 * select (a RemoveFailedPods-only policy reads only Failed pods), or undefined.
 */
export function phaseFieldSelector(policy: Policy): string | undefined {
  const wanted = selectablePhases(policy);
  // No phase at all (a contradictory policy) is rare enough to read everything and select nothing.
  if (!wanted || wanted.size === 0 || wanted.size === PHASES.length) return undefined;
  if (wanted.size === 1) return `status.phase=${[...wanted][0]}`;
  return PHASES.filter((p) => !wanted.has(p))
    .map((p) => `status.phase!=${p}`)
    .join(',');
}

/** Whether every pod the policy can select is stored Succeeded or Failed: all its decisions are deletes, none an eviction. */
export function selectsOnlyFinished(policy: Policy): boolean {
  const wanted = selectablePhases(policy);
  return wanted !== undefined && [...wanted].every((p) => p === 'Succeeded' || p === 'Failed');
}

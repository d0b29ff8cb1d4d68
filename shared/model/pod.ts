import type { Pod } from './objects.js';

// Small facts about pods that the strategies and the gate share.

export const TERMINAL_PHASES: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);

export function isTerminal(pod: Pod): boolean {
  return TERMINAL_PHASES.has(pod.status?.phase ?? '');
}

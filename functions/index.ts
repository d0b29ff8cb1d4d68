// Every function kube-tidy serves: name -> its declaration (shared/serve/target.ts). Loaded
// one at a time, so a process serving podTerminated never evaluates the MultiKueue,
// evacuation or defrag code. The processes that serve them: shared/hosts/server/server.ts (the
// image) and shared/hosts/server/framework-entry.ts (functions-framework's --source, development).
// serverless.yml declares each of these (test/unit/deploy/declaration.test.ts checks it).
import type { TargetSpec } from '../shared/serve/target.js';

/** What the registry checks of each declaration (its parts' type varies per family). */
type Declared = Pick<TargetSpec, 'name' | 'needs'>;

export const TARGETS = {
  podTerminated: () => import('./pod-terminated.js').then((m) => m.podTerminated),
  sweep: () => import('./sweep.js').then((m) => m.sweep),
  invoke: () => import('./invoke.js').then((m) => m.invoke),
  jobDeleted: () => import('./job-deleted.js').then((m) => m.jobDeleted),
  orphanSweep: () => import('./orphan-sweep.js').then((m) => m.orphanSweep),
  defrag: () => import('./defrag.js').then((m) => m.defrag),
  evacuation: () => import('./evacuation.js').then((m) => m.evacuation),
  objectUpdated: () => import('./object-updated.js').then((m) => m.objectUpdated),
} as const satisfies Record<string, () => Promise<Declared>>;

export type TargetName = keyof typeof TARGETS;

export const isTarget = (name: string): name is TargetName => Object.hasOwn(TARGETS, name);

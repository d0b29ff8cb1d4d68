// Which target takes which watch event, derived from each target's own `accepts` (the kinds
// it declares, resolved with its parts: jobDeleted's are MULTIKUEUE_JOB_KINDS, and the verbs
// that can change its answer), not a table of its own; the resolver checks the same `accepts` again, so the two cannot disagree. A
// kind is watched when the bridge's table (bridge/kinds.ts) knows how to watch it; the others
// a target takes (evacuation's Eviction and EvictionRequest) reach it on its ticks.
import { KINDS } from '../bridge/kinds.js';
import type { Verb } from '../../cloudevents/index.js';
import { routedKinds } from '../../serve/resolve.js';
import type { Served } from '../server/setup.js';

/** A target that takes a kind's events: of these verbs only, when it names them. */
export interface Route {
  target: string;
  verbs?: readonly Verb[];
}

/** kind -> the targets that take its events, in the order they run. */
export type Routes = ReadonlyMap<string, readonly Route[]>;

export function routesOf(served: readonly Pick<Served, 'spec' | 'parts'>[]): Routes {
  const routes = new Map<string, Route[]>();
  for (const { spec, parts } of served)
    for (const kind of routedKinds(spec, parts)) {
      const targets = routes.get(kind) ?? [];
      if (!targets.some((r) => r.target === spec.name)) targets.push({ target: spec.name, ...(spec.accepts.verbs ? { verbs: spec.accepts.verbs } : {}) });
      routes.set(kind, targets);
    }
  return routes;
}

/** The targets an event of `verb` on `kind` goes to. */
export const targetsFor = (routes: Routes, kind: string, verb: Verb): string[] =>
  (routes.get(kind) ?? []).filter((r) => !r.verbs || r.verbs.includes(verb)).map((r) => r.target);

/** The routed kinds the bridge can watch, and those it cannot. */
export function watchedKinds(routes: Routes, known: Readonly<Record<string, unknown>> = KINDS): { watched: string[]; unwatched: string[] } {
  const kinds = [...routes.keys()];
  return { watched: kinds.filter((k) => Object.hasOwn(known, k)), unwatched: kinds.filter((k) => !Object.hasOwn(known, k)) };
}

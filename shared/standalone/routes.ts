// Which function takes which watch event, as the Knative Triggers generated from
// serverless.yml route them (type and kind). test/unit/standalone checks this table against
// the declaration, so the two deployments deliver the same events to the same functions.
import type { Verb } from '../cloudevents/index.js';

export interface Route {
  verb: Verb;
  kind: 'Pod' | 'Job';
  target: string;
}

export const ROUTES: readonly Route[] = [
  { verb: 'add', kind: 'Pod', target: 'podTerminated' },
  { verb: 'update', kind: 'Pod', target: 'podTerminated' },
  { verb: 'update', kind: 'Pod', target: 'evacuation' },
  { verb: 'delete', kind: 'Job', target: 'jobDeleted' },
];

/** The targets an event goes to, among those this process runs. */
export const routesFor = (verb: string, kind: string, running: ReadonlySet<string>): string[] =>
  ROUTES.filter((r) => r.verb === verb && r.kind === kind && running.has(r.target)).map((r) => r.target);

/** The kinds to watch: those some running target takes events of. */
export const watchedKinds = (running: ReadonlySet<string>): string[] => [...new Set(ROUTES.filter((r) => running.has(r.target)).map((r) => r.kind))];

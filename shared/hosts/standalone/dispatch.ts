// The standalone program's delivery, in process: each watch event goes to the targets that
// accept its kind (routing.ts), each scheduled tick to its target, through the resolver every
// transport shares (serve/resolve.ts) — the same decisions, answers, metrics and logs as over
// HTTP, with no HTTP. The watched object is handed over as it is (only checked against the
// Resource-mode schema, as a decoded event would be), never encoded as a CloudEvent.
// The answer is a status for the bridge's delivery rules (bridge/deliver.ts): any target's
// 5xx makes it 503, so the event is retried (safe: every write is tied to stored state); 4xx
// is the event's fault and is only logged (by the resolver, sampled). The fence (`holds`,
// leader.ts) is asked before each event and each tick reaches a target: when the Lease is not
// known to be held no target sees it and the answer is 503, so the bridge tries it again; it
// is delivered if this replica then renews its Lease, and dropped with the backlog if it lost
// it (main.ts: the new leader's own watch and schedule cover it).
import type { Attempt } from '../bridge/deliver.js';
import type { KubeObject, TickEvent, Verb } from '../../cloudevents/index.js';
import { BadEventError } from '../../cloudevents/index.js';
import { decodeResourceEvent } from '../../cloudevents/knative.js';
import type { Logger } from '../../log.js';
import { resolveContextOf, resolver, type Resolver } from '../../serve/resolve.js';
import type { Served } from '../server/setup.js';
import type { Runtime } from '../../runtime/runtime.js';
import { targetsFor, type Routes } from './routing.js';

export interface Dispatch {
  /** One watch event to every target that takes its kind; `signal`: stop waiting for it (shutdown). */
  event(verb: Verb, object: KubeObject, signal?: AbortSignal): Promise<Attempt>;
  /** One scheduled tick to `target`. */
  tick(target: string, signal?: AbortSignal): Promise<Attempt>;
  /** Events and ticks refused because the Lease was not known to be held. */
  dropped(): number;
}

export function inProcessDispatch(o: { served: readonly Served[]; routes: Routes; rt: Runtime; log: Logger; holds: () => boolean }): Dispatch {
  const resolvers = new Map<string, Resolver>(o.served.map(({ spec, parts }) => [spec.name, resolver(spec, parts, resolveContextOf(o.rt))]));
  let dropped = 0;
  const fenced = (what: Record<string, unknown>): boolean => {
    if (o.holds()) return false;
    if (dropped++ === 0) o.log.warn(what, 'dropping events and ticks: the Lease is not known to be held');
    return true;
  };

  return {
    event: (verb, object, signal) => untilAborted(deliverEvent(verb, object), signal),
    tick: (target, signal) => untilAborted(deliverTick(target), signal),
    dropped: () => dropped,
  };

  async function deliverEvent(verb: Verb, object: KubeObject): Promise<Attempt> {
    const { kind } = object;
    if (fenced({ kind, verb })) return { status: 503 };
    const targets = targetsFor(o.routes, kind, verb);
    let event;
    try {
      event = decodeResourceEvent(verb, object, 'object', { transport: 'plain' });
    } catch (e) {
      if (!(e instanceof BadEventError)) throw e;
      o.log.warn(
        { kind, verb, namespace: object.metadata.namespace, name: object.metadata.name, err: e.message, issues: e.issues },
        'a watched object was not taken',
      );
      return { status: e.status };
    }
    const answers = await Promise.all(targets.map((t) => resolvers.get(t)!.event(event)));
    return { status: answers.some((a) => a.status >= 500) ? 503 : 200 };
  }

  async function deliverTick(target: string): Promise<Attempt> {
    if (fenced({ target })) return { status: 503 };
    const tick: TickEvent = { type: 'tick', data: { function: target }, origin: { bridge: 'knative-pingsource', transport: 'plain' } };
    const resolve = resolvers.get(target);
    // Never: the scheduler arms only the targets this process runs.
    return { status: resolve ? (await resolve.event(tick)).status : 422 };
  }
}

/**
 * The attempt, or "aborted" as soon as `signal` says so: a replica stopping without its Lease
 * exits without waiting for handlers still running (the fence refuses their writes).
 */
function untilAborted(attempt: Promise<Attempt>, signal: AbortSignal | undefined): Promise<Attempt> {
  if (!signal) return attempt;
  if (signal.aborted) return Promise.resolve({ error: 'aborted', timedOut: false });
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve({ error: 'aborted', timedOut: false });
    signal.addEventListener('abort', onAbort, { once: true });
    attempt.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

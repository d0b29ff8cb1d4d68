import type { HttpFunction } from '@google-cloud/functions-framework';
import { decodeEvent } from '../shared/events/index.js';
import { cascadeDelete, matchKind, multiKueueOf, type CascadeResult } from '../shared/multikueue/index.js';
import { BadRequestError, respond } from '../shared/runtime/respond.js';
import type { Runtime } from '../shared/runtime/runtime.js';

/**
 * `jobDeleted`: a Job (or another configured job kind) was deleted in the MultiKueue manager;
 * delete its copy in every worker, with a propagation policy so the worker's pods go too.
 * Every worker is tried; an unreachable one makes the answer 503 (the bridge retries) only
 * after the others were handled, and the retry finds those already gone (NotFound = done).
 */
export function jobDeleted(rt: Runtime): HttpFunction {
  return (req, res) =>
    respond(req, res, rt.log, async () => {
      const event = decodeEvent({ headers: req.headers, body: req.body });
      if (event.type === 'tick') throw new BadRequestError(422, 'jobDeleted takes Job delete events; schedule ticks go to orphanSweep');
      const ref = event.type === 'object' ? { ...event.object.metadata, apiVersion: event.object.apiVersion, kind: event.object.kind } : event.ref;
      const mk = multiKueueOf(rt);
      const kind = matchKind(mk.kinds, ref.apiVersion, ref.kind);
      if (!kind) throw new BadRequestError(422, `jobDeleted takes ${mk.kinds.map((k) => `${k.group}/${k.kind}`).join(', ')} events, not ${ref.apiVersion} ${ref.kind} (MULTIKUEUE_JOB_KINDS)`);
      if (!ref.namespace) throw new BadRequestError(400, `a ${ref.kind} event needs a namespace`);
      const job = `${ref.namespace}/${ref.name}`;
      if (event.verb !== 'delete') return { body: { outcome: 'nothing-to-do', job, why: `a ${event.verb} event; only deletions cascade` } };

      const workers = await mk.workers.list();
      const c = rt.config;
      const opts = { origin: c.MULTIKUEUE_ORIGIN, propagation: c.MULTIKUEUE_PROPAGATION, dryRun: c.DRY_RUN };
      const results: CascadeResult[] = await Promise.all(workers.map((w) => cascadeDelete(w, kind, { namespace: ref.namespace!, name: ref.name }, opts)));
      const unreachable = results.filter((r) => r.outcome === 'unreachable');
      const failed = results.filter((r) => r.outcome === 'failed');
      // Re-read the workers on the retry: a rotated Secret may be the reason.
      if (unreachable.length || failed.length) mk.workers.invalidate();
      const status = unreachable.length ? 503 : failed.length ? 500 : 200;
      const outcome = status === 200 ? 'cascaded' : 'incomplete';
      const why = results.map((r) => `${r.worker}: ${r.outcome}`).join('; ') || 'no workers configured';
      if (status !== 200) rt.log.warn({ job, results: results.map(({ worker, outcome, why }) => ({ worker, outcome, why })) }, 'cascade incomplete');
      return { status, body: { outcome, job, kind: `${kind.group}/${kind.kind}`, why, dryRun: c.DRY_RUN, workers: results } };
    });
}

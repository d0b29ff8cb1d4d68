import { cascadeDelete, matchKind, multiKueueParts, notSubmitted, type CascadeResult } from '../shared/multikueue/index.js';
import { BadRequestError } from '../shared/serve/resolve.js';
import { defineTarget } from '../shared/serve/target.js';

/**
 * `jobDeleted`: a Job (or another configured job kind) was deleted in the MultiKueue manager;
 * delete its copy in every worker, with a propagation policy so the worker's pods go too.
 * Every worker is tried; an unreachable one makes the answer 503 (the bridge retries) only
 * after the others were handled, and the retry finds those already gone (NotFound = done).
 * The watch takes every Job (the object rules need them), so a job never submitted to Kueue
 * (no queue-name label on the deleted object) is answered nothing-to-do before any read.
 */
export const jobDeleted = defineTarget({
  name: 'jobDeleted',
  accepts: {
    kinds: (mk) => mk.kinds.map((k) => k.kind),
    verbs: ['delete'],
    hint: 'jobDeleted takes deletions of the MULTIKUEUE_JOB_KINDS; schedule ticks go to orphanSweep',
  },
  needs: { policy: false, cluster: 'at-start' },
  setup: multiKueueParts,
  async handle(input, mk) {
    if (input.type !== 'object' && input.type !== 'reference') throw new Error('unreachable: accepts only object events');
    const ref = input.type === 'object' ? { apiVersion: input.event.object.apiVersion, kind: input.event.object.kind } : input.event.ref;
    const kind = matchKind(mk.kinds, ref.apiVersion, ref.kind);
    if (!kind)
      throw new BadRequestError(
        422,
        `jobDeleted takes ${mk.kinds.map((k) => `${k.group}/${k.kind}`).join(', ')} events, not ${ref.apiVersion} ${ref.kind} (MULTIKUEUE_JOB_KINDS)`,
      );
    const job = `${input.namespace}/${input.name}`;
    if (input.event.verb !== 'delete') return { outcome: 'nothing-to-do', job, why: `a ${input.event.verb} event; only deletions cascade` };
    // A reference carries no labels: it may be Kueue's, so it cascades as before.
    const unqueued = input.type === 'object' ? notSubmitted(input.event.object.metadata) : undefined;
    if (unqueued) return { outcome: 'nothing-to-do', job, kind: `${kind.group}/${kind.kind}`, why: unqueued };

    const workers = await mk.workers.list();
    const opts = { origin: mk.config.MULTIKUEUE_ORIGIN, propagation: mk.config.MULTIKUEUE_PROPAGATION, notifier: mk.notifier };
    const results: CascadeResult[] = await Promise.all(
      workers.map((w) => cascadeDelete(w, mk.writer(w), kind, { namespace: input.namespace, name: input.name }, opts)),
    );
    const failures = { transient: results.filter((r) => r.outcome === 'unreachable').length, refused: results.filter((r) => r.outcome === 'failed').length };
    // Re-read the workers on the retry: a rotated Secret may be the reason.
    if (failures.transient || failures.refused) {
      mk.workers.invalidate();
      mk.log.warn({ job, results: results.map(({ worker, outcome, why }) => ({ worker, outcome, why })) }, 'cascade incomplete');
    }
    const outcome = failures.transient || failures.refused ? 'incomplete' : 'cascaded';
    const why = results.map((r) => `${r.worker}: ${r.outcome}`).join('; ') || 'no workers configured';
    return { outcome, job, kind: `${kind.group}/${kind.kind}`, why, workers: results, failures };
  },
  observe(answer, metrics) {
    for (const w of answer.workers ?? []) metrics.record('cascades', 1, { worker: w.worker, outcome: w.outcome });
  },
});

// One pod, one pass: read what is stored on the pod and its migration, decide (core/decide.ts:
// the machine's next step as effects), apply them (io/effects.ts); again when a write met a
// newer pod (409) or a found migration was recorded, until an answer comes (the edge's
// retryOnConflict, kube/conflict.ts). Every write is conditional or idempotent, so a crash
// anywhere leaves a state the next pass continues from.
// In a dry run nothing is stored, so the pass carries what it would have written forward itself
// and answers what it would do.
import { retryOnConflict } from '../../kube/conflict.js';
import { getPod } from '../../kube/get.js';
import type { Stored } from '../../model/identity.js';
import type { Deferral } from '../../model/removal.js';
import type { Pod } from '../../model/objects.js';
import { readState } from '../core/annotations.js';
import { decide } from '../core/decide.js';
import type { PassOutcome } from '../core/effects.js';
import { evictionRequestView } from '../core/eviction-request.js';
import { isDirect, type MigrationView, type Observation, type PodView } from '../core/machine.js';
import { podView } from '../core/pod-view.js';
import type { EvacuationDeps } from './deps.js';
import { apply } from './effects.js';
import { evictionFor, getEvictionRequest } from './eviction-request.js';
import { findMigration, getMigration } from './kubevirt.js';

export type { EvacuationDeps } from './deps.js';
export type { PassOutcome } from '../core/effects.js';

export interface PassResult {
  outcome: PassOutcome;
  pod: string;
  why: string;
  attempt?: number;
  migration?: string;
  /** `deferred`: the policy's budget that held the start back (EVACUATION_CHARGE_BUDGETS), and when it frees. */
  deferred?: Deferral;
  /** Nothing was written: `why` says what a real pass would have done. */
  dryRun?: true;
}

// Enough rounds for start -> record -> end in one pass; a 409 costs one round.
const ROUNDS = 6;

async function observe(d: EvacuationDeps, namespace: string, view: PodView): Promise<MigrationView | undefined> {
  const run = readState(view.annotations);
  if (run.state === 'Started' && run.evictionRequest) {
    const er = await getEvictionRequest(d.custom, namespace, run.evictionRequest);
    return er && evictionRequestView(er, await evictionFor(d.custom, namespace, view.uid));
  }
  if (run.state !== 'Started' || !view.vmi) return undefined;
  if (run.migration) {
    const m = await getMigration(d.custom, namespace, run.migration);
    return m && { name: run.migration, phase: m.status?.phase ?? '', recorded: true };
  }
  if (isDirect(view, d.config.settings)) return undefined;
  const m = await findMigration(d.custom, namespace, view.vmi, run.startedAt);
  return m && { name: m.metadata.name, phase: m.status?.phase ?? '', recorded: false };
}

/** What a dry-run answer says instead: the write that would have been made, before the reason. */
const WOULD: Partial<Record<PassOutcome, string>> = {
  started: 'start the attempt',
  backoff: 'back off',
  succeeded: 'end it as Succeeded',
  failed: 'end it as Failed',
  timedout: 'end it as TimedOut',
  cancelled: 'end it as Cancelled',
  blocked: 'start the attempt, but',
};

function said(d: EvacuationDeps, r: PassResult): PassResult {
  if (!d.writer.dryRun) return r;
  const would = WOULD[r.outcome];
  return { ...r, dryRun: true, why: would ? `dry run, nothing written: would ${would}: ${r.why}` : `dry run: ${r.why}` };
}

/** Carry the pod's evacuation as far as it goes now. `initial`: a copy just listed (saves a GET). */
export async function evacuate(
  d: EvacuationDeps,
  ref: { namespace: string; name: string },
  opts: { initial?: Stored<Pod>; strategyRequest?: string } = {},
): Promise<PassResult> {
  const key = `${ref.namespace}/${ref.name}`;
  if (d.writer.options.protectedNamespaces.includes(ref.namespace))
    return { outcome: 'nothing-to-do', pod: key, why: `namespace ${ref.namespace} is protected` };
  // A dry run's own write, carried to the next round instead of re-reading (nothing was stored).
  let carried: Stored<Pod> | undefined;
  return retryOnConflict(
    async (round) => {
      const c = carried;
      carried = undefined;
      return c ?? (round === 0 && opts.initial ? opts.initial : getPod(d.core, ref));
    },
    async (pod) => {
      const view = pod && podView(pod);
      const migration = view && (await observe(d, ref.namespace, view));
      const o: Observation = {
        now: d.now(),
        ...(d.evictionRequests ? { evictionRequests: true } : {}),
        ...(view ? { pod: view } : {}),
        ...(migration ? { migration } : {}),
        ...(opts.strategyRequest ? { strategyRequest: opts.strategyRequest } : {}),
      };
      const effects = decide(o, d.config.settings, d.config.holder);
      d.log.debug({ pod: key, effects }, 'evacuation effects');
      const done = await apply(d, { ...ref, ...(pod ? { pod } : {}) }, effects);
      if (done.end === 'answer') return said(d, { outcome: done.outcome, pod: key, why: done.why, ...done.info });
      if (done.end === 'reply') throw new Error('unreachable: a responder effect in a pass over a pod');
      carried = done.carried;
      return false; // a write met a newer pod, or a step to record: read (or take what was carried) and decide again
    },
    { attempts: ROUNDS, exhausted: () => said(d, { outcome: 'waiting', pod: key, why: 'contended: another instance keeps changing the pod' }) },
  );
}

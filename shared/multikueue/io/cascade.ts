// A manager-side deletion carried into one worker: read the copy, check it is ours (origin
// label), delete it with a propagation policy and with preconditions on the uid and
// resourceVersion that were checked. If the object changed in between (relabelled, or
// replaced by a new one of the same name) the API server answers 409 and we look again,
// so the check and the delete are about the same object. NotFound is done. The delete goes
// through the worker's ClusterWriter: DRY_RUN, protected namespaces, preconditions, and an
// unlimited ticket (outside-budgets.ts: the cascade is outside the budgets, and says why).
import { retryOnConflict } from '../../kube/conflict.js';
import { TransientKubeError } from '../../kube/errors.js';
import { readOrAbsent } from '../../kube/read.js';
import { tallied } from '../../kube/request-tally.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { ObjectId } from '../../model/identity.js';
import type { JobKind } from '../core/kinds.js';
import type { RemoteObject } from '../core/remote-object.js';
import { remoteVerdict } from '../core/verdict.js';
import { CASCADE_OUTSIDE_BUDGETS, cascadeTicket } from './outside-budgets.js';
import type { Worker } from './workers.js';
import { cascaded } from '../../notify/families.js';
import type { Notifier } from '../../notify/notifier.js';

export type CascadeOutcome = 'deleted' | 'gone' | 'terminating' | 'other-origin' | 'no-origin' | 'unreachable' | 'failed';

export interface CascadeResult {
  worker: string;
  outcome: CascadeOutcome;
  why: string;
  dryRun: boolean;
  /** Requests sent to this worker's API server for the cascade, retries after throttling included (counted as they are sent: kube/request-tally.ts). */
  requests: number;
}

export interface CascadeOptions {
  origin: string;
  propagation: 'Background' | 'Foreground';
  /** The process's CloudEvents out (notify/notifier.ts): one per worker's cascade. */
  notifier: Notifier;
}

/** Delete one object with preconditions (when `id` carries a uid): deleted, gone (404) or stale (409: it changed). Outside the budgets. */
export function deleteRemote(
  writer: ClusterWriter,
  kind: JobKind,
  id: ObjectId,
  propagation: 'Background' | 'Foreground',
): Promise<'deleted' | 'gone' | 'stale'> {
  return writer.deleteObject({ group: kind.group, version: kind.version, plural: kind.plural }, id, cascadeTicket(), { propagationPolicy: propagation });
}

function read(worker: Worker, kind: JobKind, namespace: string, name: string): Promise<RemoteObject | undefined> {
  return readOrAbsent(
    `get ${kind.plural}.${kind.group} ${namespace}/${name}`,
    async () =>
      (await worker.api!.custom.getNamespacedCustomObject({ group: kind.group, version: kind.version, plural: kind.plural, namespace, name })) as RemoteObject,
  );
}

/**
 * `writer`: the worker's (built with its clients), or undefined when the worker has none. The
 * cascade runs in a tally of its own: the worker's clients count every request they send for it
 * (the cascades of one event run side by side, one per worker).
 */
export function cascadeDelete(
  worker: Worker,
  writer: ClusterWriter | undefined,
  kind: JobKind,
  ref: { namespace: string; name: string },
  opts: CascadeOptions,
): Promise<CascadeResult> {
  return tallied(async (tally) => {
    const r = await cascade(worker, writer, kind, ref, opts);
    cascaded(
      opts.notifier,
      { worker: r.worker, kind: `${kind.group}/${kind.kind}`, namespace: ref.namespace, name: ref.name, outcome: r.outcome, why: r.why, dryRun: r.dryRun },
      kind.plural,
    );
    return { ...r, requests: tally.sent };
  });
}

async function cascade(
  worker: Worker,
  writer: ClusterWriter | undefined,
  kind: JobKind,
  ref: { namespace: string; name: string },
  opts: CascadeOptions,
): Promise<Omit<CascadeResult, 'requests'>> {
  const dryRun = writer?.dryRun ?? false;
  const result = (outcome: CascadeOutcome, why: string): Omit<CascadeResult, 'requests'> => ({ worker: worker.name, outcome, why, dryRun });
  if (!worker.api || !writer)
    return result(worker.error?.transient ? 'unreachable' : 'failed', `worker ${worker.name}: ${worker.error?.message ?? 'no client'}`);
  try {
    // Three looks at most: a copy that keeps changing under us is reported, not chased.
    return await retryOnConflict(
      async () => remoteVerdict(await read(worker, kind, ref.namespace, ref.name), opts.origin),
      async (verdict) => {
        if (!verdict.delete) return result(verdict.outcome, verdict.why);
        const outcome = await deleteRemote(
          writer,
          kind,
          { ...ref, uid: verdict.uid, ...(verdict.resourceVersion ? { resourceVersion: verdict.resourceVersion } : {}) },
          opts.propagation,
        );
        // Its unlimited ticket's reason, said where the removal is (the CloudEvent, the answer's body).
        const deleted = `${kind.kind} ${ref.namespace}/${ref.name} uid ${verdict.uid} deleted (propagation ${opts.propagation})`;
        if (outcome === 'deleted') return result('deleted', `${deleted}; ${CASCADE_OUTSIDE_BUDGETS}`);
        if (outcome === 'gone') return result('gone', 'deleted by someone else meanwhile');
        return false; // stale: it changed since it was read
      },
      { attempts: 3, exhausted: () => result('failed', 'the copy kept changing between the check and the delete') },
    );
  } catch (e) {
    const transient = e instanceof TransientKubeError;
    return result(transient ? 'unreachable' : 'failed', (e as Error).message);
  }
}

// A manager-side deletion carried into one worker: read the copy, check it is ours (origin
// label), delete it with a propagation policy and with preconditions on the uid and
// resourceVersion that were checked. If the object changed in between (relabelled, or
// replaced by a new one of the same name) the API server answers 409 and we look again,
// so the check and the delete are about the same object. NotFound is done.
import { classifyKubeError, toKubeError, TransientKubeError } from '../kube/index.js';
import type { AnyObject, ApiClients } from './client.js';
import type { JobKind } from './kinds.js';
import { remoteVerdict } from './verdict.js';
import type { Worker } from './workers.js';

export type CascadeOutcome = 'deleted' | 'gone' | 'terminating' | 'other-origin' | 'no-origin' | 'unreachable' | 'failed';

export interface CascadeResult {
  worker: string;
  outcome: CascadeOutcome;
  why: string;
  dryRun: boolean;
  /** API requests made to this worker. */
  requests: number;
}

export interface DeleteOptions {
  propagation: 'Background' | 'Foreground';
  dryRun: boolean;
}

export interface Target {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion?: string;
}

/** Delete one object with preconditions: deleted, gone (404) or stale (409: it changed). */
export async function deleteRemote(api: ApiClients, kind: JobKind, t: Target, opts: DeleteOptions): Promise<'deleted' | 'gone' | 'stale'> {
  try {
    await api.custom.deleteNamespacedCustomObject({
      group: kind.group,
      version: kind.version,
      plural: kind.plural,
      namespace: t.namespace,
      name: t.name,
      // With a body, the API server reads DeleteOptions from it and ignores the query: dryRun
      // must be in the body, or a "dry run" deletes for real.
      body: {
        propagationPolicy: opts.propagation,
        preconditions: { uid: t.uid, ...(t.resourceVersion ? { resourceVersion: t.resourceVersion } : {}) },
        ...(opts.dryRun ? { dryRun: ['All'] } : {}),
      },
    });
    return 'deleted';
  } catch (e) {
    const kindOf = classifyKubeError(e).kind;
    if (kindOf === 'not-found') return 'gone';
    if (kindOf === 'conflict') return 'stale';
    throw toKubeError(e, `delete ${kind.plural}.${kind.group} ${t.namespace}/${t.name}`);
  }
}

async function read(api: ApiClients, kind: JobKind, namespace: string, name: string): Promise<AnyObject | undefined> {
  try {
    return (await api.custom.getNamespacedCustomObject({ group: kind.group, version: kind.version, plural: kind.plural, namespace, name })) as AnyObject;
  } catch (e) {
    if (classifyKubeError(e).kind === 'not-found') return undefined;
    throw toKubeError(e, `get ${kind.plural}.${kind.group} ${namespace}/${name}`);
  }
}

export async function cascadeDelete(worker: Worker, kind: JobKind, ref: { namespace: string; name: string }, opts: DeleteOptions & { origin: string }): Promise<CascadeResult> {
  const result = (outcome: CascadeOutcome, why: string, requests: number): CascadeResult => ({ worker: worker.name, outcome, why, dryRun: opts.dryRun, requests });
  if (!worker.api) return result(worker.error?.transient ? 'unreachable' : 'failed', `worker ${worker.name}: ${worker.error?.message ?? 'no client'}`, 0);
  let requests = 0;
  try {
    // Three looks at most: a copy that keeps changing under us is reported, not chased.
    for (let attempt = 0; attempt < 3; attempt++) {
      requests++;
      const verdict = remoteVerdict(await read(worker.api, kind, ref.namespace, ref.name), opts.origin);
      if (!verdict.delete) return result(verdict.outcome, verdict.why, requests);
      requests++;
      const outcome = await deleteRemote(worker.api, kind, { ...ref, uid: verdict.uid, resourceVersion: verdict.resourceVersion }, opts);
      if (outcome === 'deleted') return result('deleted', `${kind.kind} ${ref.namespace}/${ref.name} uid ${verdict.uid} deleted (propagation ${opts.propagation})`, requests);
      if (outcome === 'gone') return result('gone', 'deleted by someone else meanwhile', requests);
    }
    return result('failed', 'the copy kept changing between the check and the delete', requests);
  } catch (e) {
    const transient = e instanceof TransientKubeError;
    return result(transient ? 'unreachable' : 'failed', (e as Error).message, requests);
  }
}

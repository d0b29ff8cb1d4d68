// One object decision carried out. A report-mode rule writes nothing here (its results are
// reported). A Job is deleted as the read it was decided on saw it (see `asDecided`). A claim or
// a Workload is read again, the rule checked against what is stored now (the condition, its
// age, and for a claim the pods, templates and volume read again: what names a claim is not in
// the claim's own version), then deleted tied to the uid and resourceVersion just read: a claim
// recreated under the same name, or a condition that flipped back after the re-read, answers
// `stale`/`gone`, never a wrong delete. A Job goes with propagationPolicy Background (its pods
// with it, as the TTL controller deletes); a finished Workload's owner is read again and deleted
// the same way. Reads and DELETEs are sent directly (kube/direct-objects.ts: no typed models).
import { classifyKubeError, KubeRequestError, TransientKubeError } from '../../kube/errors.js';
import type { RemovalTicket } from '../../kube/admission.js';
import type { Resource } from '../../kube/direct-paths.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { ObjectRule } from '../../policy/objects-schema.js';
import { recheck } from '../core/decide.js';
import { emptyContext, type ObjectDecision, type RemovalTarget, type StoredObject } from '../core/model.js';
import { claimContextFor, readRaw, readStored, type ObjectsReader } from './read.js';

export type ObjectOutcome = 'reported' | 'deleted' | 'evicted' | 'blocked' | 'deferred' | 'kept' | 'stale' | 'gone' | 'failed' | 'refused';

export interface ObjectResult {
  decision: ObjectDecision;
  outcome: ObjectOutcome;
  dryRun: boolean;
  message?: string;
}

export interface ActDeps {
  reader: ObjectsReader;
  writer: ClusterWriter;
  rules: readonly ObjectRule[];
  now: () => number;
}

/** The resource of a target of any group (a Job, a Workload's owner of any job kind). */
function resourceOf(t: Pick<RemovalTarget, 'apiVersion' | 'kind'>): Resource {
  const [group, version] = t.apiVersion.includes('/') ? t.apiVersion.split('/') : ['', t.apiVersion];
  // The convention every job kind's CRD follows (jobs, jobsets, rayjobs, ...), as MultiKueue reads them.
  return { group: group!, version: version!, plural: `${t.kind.toLowerCase()}s` };
}

/** Deletes what the decision removes, tied to the stored object (and for a Workload, its owner read again). */
async function deleteTarget(deps: ActDeps, d: ObjectDecision, now: StoredObject, ticket: RemovalTicket): Promise<'deleted' | 'gone' | 'stale'> {
  const id = { namespace: now.namespace, name: now.name, uid: now.uid, resourceVersion: now.resourceVersion };
  if (now.kind === 'PersistentVolumeClaim') return deps.writer.deleteClaim(id, ticket);
  const target = d.target.uid === now.uid ? { ...d.target, resourceVersion: now.resourceVersion } : await ownerAgain(deps.reader, d.target);
  if (!target) return 'gone';
  if (target.uid !== d.target.uid) return 'stale';
  return deps.writer.deleteAsRead(resourceOf(d.target), target, ticket, { propagationPolicy: 'Background' });
}

async function ownerAgain(r: ObjectsReader, t: RemovalTarget) {
  const o = await readRaw<{ metadata?: { uid?: string; resourceVersion?: string } }>(r, resourceOf(t), t);
  if (!o?.metadata?.uid || !o.metadata.resourceVersion) return undefined;
  return { namespace: t.namespace, name: t.name, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion };
}

/**
 * A Job, deleted as the read it was decided on saw it (a pass's LIST, an event's GET), tied to
 * that uid and resourceVersion: all its rule reads of it (its conditions, labels, namespace) is
 * in that version, and the time since its condition only grows, so a read again would decide the
 * same unless the Job was written since, which the precondition refuses (`stale`: the next pass,
 * or the watch event of that write, decides again). Its owner's rules (a CronJob's history,
 * keepLast) are not judged again on one object, as after a re-read. One request per Job, as the
 * pods' pass writes.
 */
async function asDecided(deps: ActDeps, d: ObjectDecision, ticket: RemovalTicket): Promise<'deleted' | 'gone' | 'stale'> {
  const id = { namespace: d.namespace, name: d.name, uid: d.uid, resourceVersion: d.resourceVersion };
  return deps.writer.deleteAsRead(resourceOf(d.target), id, ticket, { propagationPolicy: 'Background' });
}

/**
 * The decision carried out with its admission ticket, which the writer settles if a delete is
 * sent; the caller gives it back when none is (kept or gone on the re-read: `unsent`).
 */
export async function actOnObject(deps: ActDeps, d: ObjectDecision, ticket: RemovalTicket): Promise<ObjectResult> {
  const dryRun = deps.writer.dryRun;
  const rule = deps.rules.find((r) => r.name === d.rule);
  if (!rule || d.mode === 'report') return { decision: d, outcome: 'reported', dryRun };
  try {
    if (d.kind === 'Job') {
      const outcome = await asDecided(deps, d, ticket);
      return {
        decision: d,
        outcome,
        dryRun,
        ...(outcome === 'stale' ? { message: 'written since it was read (or recreated under its name): the next decision reads it again' } : {}),
      };
    }
    const now = await readStored(deps.reader, rule.kind, d);
    if (!now) return { decision: d, outcome: 'gone', dryRun, message: 'gone before the delete' };
    if (now.uid !== d.uid)
      return { decision: d, outcome: 'gone', dryRun, message: 'recreated under the same name since it was decided: a new object, left alone' };
    const ctx = now.kind === 'PersistentVolumeClaim' ? await claimContextFor(deps.reader, now) : emptyContext();
    const why = recheck(rule, now, ctx, deps.now());
    if (why) return { decision: d, outcome: 'kept', dryRun, message: `read again before the delete: ${why}` };
    const outcome = await deleteTarget(deps, d, now, ticket);
    return { decision: d, outcome, dryRun, ...(outcome === 'stale' ? { message: 'changed between the re-read and the delete' } : {}) };
  } catch (e) {
    return failedWith(d, dryRun, e);
  }
}

/** A delete that threw: `failed` when it may be retried (or may have landed), `refused` when the API server said no. */
export function failedWith(d: ObjectDecision, dryRun: boolean, e: unknown): ObjectResult {
  if (e instanceof TransientKubeError) return { decision: d, outcome: 'failed', dryRun, message: e.message };
  if (e instanceof KubeRequestError) return { decision: d, outcome: 'refused', dryRun, message: e.message };
  const failure = classifyKubeError(e);
  return { decision: d, outcome: failure.kind === 'transient' ? 'failed' : 'refused', dryRun, message: (e as Error).message };
}

// One object decision carried out. A report-mode rule writes nothing here (its results are
// reported). A delete reads the object again, checks the rule against what is stored now (the
// condition, its age, and for a claim the pods, templates and volume read again), then deletes
// tied to the uid and resourceVersion just read: a claim recreated under the same name, or a
// condition that flipped back after the re-read, answers `stale`/`gone`, never a wrong delete.
// A Job goes with propagationPolicy Background (its pods with it, as the TTL controller
// deletes); a finished Workload's owner is read again and deleted the same way.
import type { KubernetesObject } from '@kubernetes/client-node';
import { classifyKubeError, KubeRequestError, TransientKubeError } from '../../kube/errors.js';
import type { ClusterWriter, Gvr } from '../../kube/writer.js';
import type { ObjectRule } from '../../policy/objects-schema.js';
import { recheck } from '../core/decide.js';
import { emptyContext, type ObjectDecision, type RemovalTarget, type StoredObject } from '../core/model.js';
import { claimContextFor, storedOf, WORKLOADS, type ObjectsReader } from './read.js';

export type ObjectOutcome = 'reported' | 'deleted' | 'deferred' | 'kept' | 'stale' | 'gone' | 'failed' | 'refused';

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

type Raw = KubernetesObject & {
  status?: { conditions?: { type: string; status: string; reason?: string; lastTransitionTime?: string }[] };
  spec?: { volumeName?: string };
};

/** A group/version/plural for a target read and deleted through the custom-objects client (any group but the core one). */
function gvrOf(t: Pick<RemovalTarget, 'apiVersion' | 'kind'>): Gvr {
  const [group, version] = t.apiVersion.includes('/') ? t.apiVersion.split('/') : ['', t.apiVersion];
  // The convention every job kind's CRD follows (jobs, jobsets, rayjobs, ...), as MultiKueue reads them.
  return { group: group!, version: version!, plural: `${t.kind.toLowerCase()}s` };
}

async function orGone<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (e) {
    if (classifyKubeError(e).kind === 'not-found') return undefined;
    throw e;
  }
}

/** The decided object as stored now; undefined when it is gone. */
async function readAgain(r: ObjectsReader, d: ObjectDecision): Promise<StoredObject | undefined> {
  const at = { namespace: d.namespace, name: d.name };
  if (d.kind === 'Job') {
    const j = await orGone(() => r.batch.readNamespacedJob(at));
    return j && storedOf('Job', 'batch/v1', j.metadata, j.status?.conditions);
  }
  if (d.kind === 'PersistentVolumeClaim') {
    const c = await orGone(() => r.core.readNamespacedPersistentVolumeClaim(at));
    return c && storedOf('PersistentVolumeClaim', 'v1', c.metadata, c.status?.conditions, c.spec?.volumeName);
  }
  const w = (await orGone(() => r.custom.getNamespacedCustomObject({ ...WORKLOADS, ...at }))) as Raw | undefined;
  return w && storedOf('Workload', `${WORKLOADS.group}/${WORKLOADS.version}`, w.metadata, w.status?.conditions);
}

/** Deletes what the decision removes, tied to the stored object (and for a Workload, its owner read again). */
async function deleteTarget(deps: ActDeps, d: ObjectDecision, now: StoredObject): Promise<'deleted' | 'gone' | 'stale'> {
  const id = { namespace: now.namespace, name: now.name, uid: now.uid, resourceVersion: now.resourceVersion };
  if (now.kind === 'PersistentVolumeClaim') return deps.writer.deleteClaim(id);
  const target = d.target.uid === now.uid ? { ...d.target, resourceVersion: now.resourceVersion } : await ownerAgain(deps.reader, d.target);
  if (!target) return 'gone';
  if (target.uid !== d.target.uid) return 'stale';
  return deps.writer.deleteObject(gvrOf(d.target), target, { propagationPolicy: 'Background' });
}

async function ownerAgain(r: ObjectsReader, t: RemovalTarget) {
  const o = (await orGone(() => r.custom.getNamespacedCustomObject({ ...gvrOf(t), namespace: t.namespace, name: t.name }))) as Raw | undefined;
  if (!o?.metadata?.uid || !o.metadata.resourceVersion) return undefined;
  return { namespace: t.namespace, name: t.name, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion };
}

export async function actOnObject(deps: ActDeps, d: ObjectDecision): Promise<ObjectResult> {
  const dryRun = deps.writer.dryRun;
  const rule = deps.rules.find((r) => r.name === d.rule);
  if (!rule || d.mode === 'report') return { decision: d, outcome: 'reported', dryRun };
  try {
    const now = await readAgain(deps.reader, d);
    if (!now) return { decision: d, outcome: 'gone', dryRun, message: 'gone before the delete' };
    if (now.uid !== d.uid)
      return { decision: d, outcome: 'gone', dryRun, message: 'recreated under the same name since it was decided: a new object, left alone' };
    const ctx = now.kind === 'PersistentVolumeClaim' ? await claimContextFor(deps.reader, now) : emptyContext();
    const why = recheck(rule, now, ctx, deps.now());
    if (why) return { decision: d, outcome: 'kept', dryRun, message: `read again before the delete: ${why}` };
    const outcome = await deleteTarget(deps, d, now);
    return { decision: d, outcome, dryRun, ...(outcome === 'stale' ? { message: 'changed between the re-read and the delete' } : {}) };
  } catch (e) {
    if (e instanceof TransientKubeError) return { decision: d, outcome: 'failed', dryRun, message: e.message };
    if (e instanceof KubeRequestError) return { decision: d, outcome: 'refused', dryRun, message: e.message };
    const failure = classifyKubeError(e);
    return { decision: d, outcome: failure.kind === 'transient' ? 'failed' : 'refused', dryRun, message: (e as Error).message };
  }
}

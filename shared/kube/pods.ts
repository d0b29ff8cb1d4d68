// The two writes kube-tidy makes to pods. Both carry preconditions.uid, so an event about a
// pod that has since been deleted and recreated under the same name can never touch the new
// one, and both treat "already gone" as done: delivering an event twice changes nothing.
import type { V1DeleteOptions, V1Eviction } from '@kubernetes/client-node';
import type { NamespacedId } from '../model/identity.js';
import { classifyKubeError, toKubeError, type KubeFailure } from './errors.js';

/**
 * Which pod, tied to its uid; with `resourceVersion` the write also requires that version: a
 * decision made on an older copy answers 'stale' instead of acting on what the pod no longer is.
 */
export type PodTarget = NamespacedId;

export interface WriteOptions {
  /** The API server's own dry run (dryRun=All): validated and admitted, nothing persisted. */
  dryRun?: boolean;
  gracePeriodSeconds?: number;
}

export type DeleteOutcome = 'deleted' | 'gone' | 'stale';
export type EvictOutcome = 'evicted' | 'blocked' | 'gone' | 'stale';

export interface WriteResult<O extends string> {
  outcome: O;
  dryRun: boolean;
  /** The API server's words for blocked/stale/gone (e.g. the PDB refusal). */
  message?: string;
  /** Blocked by a PodDisruptionBudget (rather than, say, a webhook answering 429). */
  disruptionBudget?: boolean;
  retryAfterSeconds?: number;
}

/** What a write to one pod names, as client-node's CoreV1Api takes it. */
export interface PodWriteParams<B> {
  name: string;
  namespace: string;
  body: B;
  dryRun?: string;
}

/** The hot DELETE (direct-pods.ts sends it directly; client-node's CoreV1Api has the same shape). */
export interface PodDeleter {
  deleteNamespacedPod(param: PodWriteParams<V1DeleteOptions>): Promise<unknown>;
}

/** The eviction (direct-pods.ts sends it directly; client-node's CoreV1Api has the same shape). */
export interface PodEvictor {
  createNamespacedPodEviction(param: PodWriteParams<V1Eviction>): Promise<unknown>;
}

function deleteOptions(target: PodTarget, opts: WriteOptions): V1DeleteOptions {
  return {
    preconditions: { uid: target.uid, ...(target.resourceVersion ? { resourceVersion: target.resourceVersion } : {}) },
    // The pod's dependents (rare, but some operators hang objects off pods) are collected
    // by the garbage collector instead of being orphaned.
    propagationPolicy: 'Background',
    ...(opts.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: opts.gracePeriodSeconds }),
    ...(opts.dryRun ? { dryRun: ['All'] } : {}),
  };
}

const ref = (t: PodTarget): string => `${t.namespace}/${t.name}`;

// 404: the pod (any pod of that name) is gone, so the work is done. 409 about the pod
// itself: the uid precondition failed, a different pod now has the name. The API server
// names the pod's kind as "Pod" on DELETE and as the resource "pods" on eviction; a 409
// about anything else (the eviction's PodDisruptionBudget update) is worth a retry.
function settled(failure: KubeFailure): 'gone' | 'stale' | undefined {
  if (failure.kind === 'not-found') return 'gone';
  const aboutPod = failure.detailsKind === undefined || /^pods?$/i.test(failure.detailsKind);
  if (failure.kind === 'conflict' && aboutPod) return 'stale';
  return undefined;
}

/** Delete a pod (for Succeeded/Failed pods: nothing left to disrupt). */
export async function deletePod(core: PodDeleter, target: PodTarget, opts: WriteOptions = {}): Promise<WriteResult<DeleteOutcome>> {
  const dryRun = opts.dryRun ?? false;
  try {
    await core.deleteNamespacedPod({
      name: target.name,
      namespace: target.namespace,
      body: deleteOptions(target, opts),
      ...(dryRun ? { dryRun: 'All' } : {}),
    });
    return { outcome: 'deleted', dryRun };
  } catch (error) {
    const failure = classifyKubeError(error);
    const outcome = settled(failure);
    if (outcome) return { outcome, dryRun, message: failure.message };
    throw toKubeError(error, `delete pod ${ref(target)}`);
  }
}

/**
 * Evict a pod through policy/v1 Eviction, so PodDisruptionBudgets hold. A 429 is the
 * answer "not now" (a budget, or a webhook such as KubeVirt's starting a migration): it is
 * reported as blocked and must never be turned into a delete.
 */
export async function evictPod(core: PodEvictor, target: PodTarget, opts: WriteOptions = {}): Promise<WriteResult<EvictOutcome>> {
  const dryRun = opts.dryRun ?? false;
  try {
    await core.createNamespacedPodEviction({
      name: target.name,
      namespace: target.namespace,
      body: {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: target.name, namespace: target.namespace },
        deleteOptions: deleteOptions(target, opts),
      },
      ...(dryRun ? { dryRun: 'All' } : {}),
    });
    return { outcome: 'evicted', dryRun };
  } catch (error) {
    const failure = classifyKubeError(error);
    if (failure.kind === 'too-many-requests') {
      // The top message is generic; the cause names the budget.
      const details = failure.causes.flatMap((c) => (c.message ? [c.message] : []));
      return {
        outcome: 'blocked',
        dryRun,
        message: [failure.message, ...details].join(' '),
        disruptionBudget: failure.causes.some((c) => c.reason === 'DisruptionBudget'),
        ...(failure.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: failure.retryAfterSeconds }),
      };
    }
    const outcome = settled(failure);
    if (outcome) return { outcome, dryRun, message: failure.message };
    throw toKubeError(error, `evict pod ${ref(target)}`);
  }
}

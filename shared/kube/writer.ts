// The one way kube-tidy changes a cluster, for every family (as the descheduler's evictions
// all go through its PodEvictor). What holds for every write is applied here, once:
// - DRY_RUN: every write goes through the API server's dryRun=All (validated, admitted,
//   PodDisruptionBudgets checked, nothing persisted), and no Kubernetes Event is recorded;
// - protected namespaces are never written to, whatever a caller decided;
// - a pod is changed only through a StoredPodId (uid + resourceVersion preconditions, minted
//   from what the API server returned), and DELETEd only when it was stored Succeeded or
//   Failed: anything else goes through the Eviction API, so budgets hold;
// - one Kubernetes Event per action (pod-event.ts names it after the pod's uid and action).
// Nothing outside shared/kube calls a client's write methods (eslint.config.js enforces it).
import { PatchStrategy, setHeaderOptions, type V1ConfigMap } from '@kubernetes/client-node';
import type { ObjectId, StoredId, StoredPodId } from '../model/identity.js';
import { keyOf } from '../model/identity.js';
import type { KubeClients } from './clients.js';
import { classifyKubeError, KubeRequestError, toKubeError } from './errors.js';
import { recordNamespaceEvent, recordPodEvent, type PodEvent, type RecordResult } from './pod-event.js';
import { deletePod, evictPod, type DeleteOutcome, type EvictOutcome, type WriteResult } from './pods.js';

export interface WriterOptions {
  dryRun: boolean;
  /** A Kubernetes Event on the pod for each action (never in a dry run). */
  recordEvents: boolean;
  protectedNamespaces: readonly string[];
  gracePeriodSeconds?: number;
}

/** A custom resource's address (CustomObjectsApi), e.g. KubeVirt migrations, Job kinds. */
export interface Gvr {
  group: string;
  version: string;
  plural: string;
}

export type RemoveResult = (WriteResult<DeleteOutcome> | WriteResult<EvictOutcome>) & { action: 'delete' | 'evict'; event?: RecordResult };

const TERMINAL = new Set(['Succeeded', 'Failed']);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** A write refused before it was sent: a protected namespace, or a pod not stored terminal. */
export class WriteRefusedError extends KubeRequestError {
  constructor(what: string, why: string) {
    super(`${what}: refused by kube-tidy: ${why}`, { kind: 'rejected', message: why, causes: [] });
  }
}

export class ClusterWriter {
  constructor(
    private readonly clients: Pick<KubeClients, 'core' | 'events' | 'custom'>,
    readonly options: WriterOptions,
  ) {}

  get dryRun(): boolean {
    return this.options.dryRun;
  }

  private dry<T extends object>(params: T): T & { dryRun?: string } {
    return this.options.dryRun ? { ...params, dryRun: 'All' } : params;
  }

  private guard(what: string, namespace: string | undefined): void {
    if (namespace && this.options.protectedNamespaces.includes(namespace)) throw new WriteRefusedError(what, `namespace ${namespace} is protected`);
  }

  /**
   * Removes a pod the core selected: DELETE when it was stored Succeeded or Failed, the
   * Eviction API otherwise; both tied to the stored uid and resourceVersion, so a pod that
   * changed since it was read answers `stale` and is left for the next decision.
   */
  async removePod(pod: StoredPodId, note: string, { ownEvent }: { ownEvent?: () => boolean } = {}): Promise<RemoveResult> {
    const what = `remove pod ${keyOf(pod)}`;
    this.guard(what, pod.namespace);
    const target = { namespace: pod.namespace!, name: pod.name, uid: pod.uid, resourceVersion: pod.resourceVersion };
    const opts = { dryRun: this.options.dryRun, gracePeriodSeconds: this.options.gracePeriodSeconds };
    const result: RemoveResult = TERMINAL.has(pod.phase)
      ? { action: 'delete', ...(await deletePod(this.clients.core, target, opts)) }
      : { action: 'evict', ...(await evictPod(this.clients.core, target, opts)) };
    // `ownEvent` is asked only once the pod is removed: a pass's event budget (cleanup/io/event-budget.ts).
    if ((result.outcome === 'deleted' || result.outcome === 'evicted') && (ownEvent?.() ?? true)) {
      const deleted = result.outcome === 'deleted';
      const recorded = await this.recordEvent(pod, { reason: deleted ? 'Deleted' : 'Evicted', action: deleted ? 'Delete' : 'Evict', type: 'Normal', note });
      if (recorded) result.event = recorded;
    }
    return result;
  }

  /** Eviction tied to the uid only: the evacuation path, right after its own annotation write. */
  async evictPodForMigration(pod: StoredId): Promise<WriteResult<EvictOutcome>> {
    this.guard(`evict pod ${keyOf(pod)}`, pod.namespace);
    return evictPod(this.clients.core, { namespace: pod.namespace!, name: pod.name, uid: pod.uid }, { dryRun: this.options.dryRun });
  }

  /** Merge-patch annotations (null removes) if the pod is still at its stored resourceVersion. */
  async annotatePod(pod: StoredId, annotations: Record<string, string | null>): Promise<{ outcome: 'written'; resourceVersion: string } | { outcome: 'conflict' | 'gone' }> {
    const what = `annotate pod ${keyOf(pod)}`;
    this.guard(what, pod.namespace);
    try {
      const written = await this.clients.core.patchNamespacedPod(
        this.dry({ namespace: pod.namespace!, name: pod.name, body: { metadata: { resourceVersion: pod.resourceVersion, annotations } } }),
        mergePatch,
      );
      return { outcome: 'written', resourceVersion: written.metadata?.resourceVersion ?? pod.resourceVersion };
    } catch (e) {
      const kind = classifyKubeError(e).kind;
      if (kind === 'conflict') return { outcome: 'conflict' };
      if (kind === 'not-found') return { outcome: 'gone' };
      throw toKubeError(e, what);
    }
  }

  /** Merge-patch a node (annotations, cordon), tied to its resourceVersion when one is given. */
  async patchNode(node: ObjectId, body: { metadata?: { annotations?: Record<string, string | null> }; spec?: { unschedulable?: boolean } }): Promise<void> {
    const metadata = { ...body.metadata, ...(node.resourceVersion ? { resourceVersion: node.resourceVersion } : {}) };
    try {
      await this.clients.core.patchNode(this.dry({ name: node.name, body: { ...body, metadata } }), mergePatch);
    } catch (e) {
      throw toKubeError(e, `patch node ${node.name}`);
    }
  }

  /** Create a custom object; AlreadyExists is success (the deterministic name was taken by us). */
  async createObject(gvr: Gvr, namespace: string, body: { metadata: { name: string } } & Record<string, unknown>): Promise<'created' | 'exists'> {
    const what = `create ${gvr.plural} ${namespace}/${body.metadata.name}`;
    this.guard(what, namespace);
    try {
      await this.clients.custom.createNamespacedCustomObject(this.dry({ ...gvr, namespace, body }));
      return 'created';
    } catch (e) {
      if (classifyKubeError(e).kind === 'conflict') return 'exists';
      throw toKubeError(e, what);
    }
  }

  /**
   * Delete a custom object (a migration, a job copy), with preconditions on what was read
   * when `id` carries them. Already gone is done; a failed precondition is `stale`.
   */
  async deleteObject(gvr: Gvr, id: ObjectId, opts: { propagationPolicy?: 'Background' | 'Foreground' } = {}): Promise<'deleted' | 'gone' | 'stale'> {
    const what = `delete ${gvr.plural} ${keyOf(id)}`;
    this.guard(what, id.namespace);
    const preconditions = id.uid ? { uid: id.uid, ...(id.resourceVersion ? { resourceVersion: id.resourceVersion } : {}) } : undefined;
    const body = { ...(preconditions ? { preconditions } : {}), ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}), ...(this.options.dryRun ? { dryRun: ['All'] } : {}) };
    try {
      const params = { ...gvr, name: id.name, body, ...(this.options.dryRun ? { dryRun: 'All' } : {}) };
      if (id.namespace) await this.clients.custom.deleteNamespacedCustomObject({ ...params, namespace: id.namespace });
      else await this.clients.custom.deleteClusterCustomObject(params);
      return 'deleted';
    } catch (e) {
      const kind = classifyKubeError(e).kind;
      if (kind === 'not-found') return 'gone';
      if (kind === 'conflict') return 'stale';
      throw toKubeError(e, what);
    }
  }

  /**
   * Merge-patch an object of any group (or its status subresource), tied to the
   * resourceVersion it was read at when `id` carries one: `conflict` then means it changed
   * since, and the caller re-reads. For APIs client-node has no types for (lifecycle.k8s.io).
   */
  async patchObject(gvr: Gvr, id: ObjectId, body: Record<string, unknown>, opts: { status?: boolean } = {}): Promise<'written' | 'conflict' | 'gone'> {
    const what = `patch ${gvr.plural}${opts.status ? '/status' : ''} ${keyOf(id)}`;
    this.guard(what, id.namespace);
    const metadata = { ...(body.metadata as object | undefined), ...(id.resourceVersion ? { resourceVersion: id.resourceVersion } : {}) };
    const params = this.dry({ ...gvr, namespace: id.namespace ?? '', name: id.name, body: { ...body, metadata } });
    try {
      if (opts.status) await this.clients.custom.patchNamespacedCustomObjectStatus(params, mergePatch);
      else await this.clients.custom.patchNamespacedCustomObject(params, mergePatch);
      return 'written';
    } catch (e) {
      const kind = classifyKubeError(e).kind;
      if (kind === 'conflict') return 'conflict';
      if (kind === 'not-found') return 'gone';
      throw toKubeError(e, what);
    }
  }

  /**
   * Create or replace a ConfigMap only if it is still what was read (`seen`): the stored
   * ConfigMap as written (its new resourceVersion), or false on a conflict.
   */
  async writeConfigMap(namespace: string, name: string, seen: V1ConfigMap | undefined, data: Record<string, string>): Promise<V1ConfigMap | false> {
    const what = `write configmap ${namespace}/${name}`;
    this.guard(what, namespace);
    try {
      if (!seen) return await this.clients.core.createNamespacedConfigMap(this.dry({ namespace, body: { metadata: { name, namespace }, data } }));
      return await this.clients.core.replaceNamespacedConfigMap(this.dry({ namespace, name, body: { metadata: { name, namespace, resourceVersion: seen.metadata?.resourceVersion }, data } }));
    } catch (e) {
      if (classifyKubeError(e).kind === 'conflict') return false;
      throw toKubeError(e, what);
    }
  }

  /** Create a namespace (kube-tidy's own, for its ledger); one that exists is fine. */
  async createNamespace(name: string): Promise<'created' | 'exists'> {
    try {
      await this.clients.core.createNamespace(this.dry({ body: { metadata: { name } } }));
      return 'created';
    } catch (e) {
      if (classifyKubeError(e).kind === 'conflict') return 'exists';
      throw toKubeError(e, `create namespace ${name}`);
    }
  }

  /** An Event on a namespace summing up what a pass did there (not in a dry run, nor with events off). */
  async recordNamespaceEvent(namespace: string, event: PodEvent & { once: string }): Promise<RecordResult | undefined> {
    if (!this.options.recordEvents) return undefined;
    return recordNamespaceEvent(this.clients.events, namespace, event, { dryRun: this.options.dryRun });
  }

  /** A Kubernetes Event on the pod (not in a dry run, nor with events off). Best effort. */
  async recordEvent(pod: { namespace?: string; name: string; uid: string }, event: PodEvent): Promise<RecordResult | undefined> {
    if (!this.options.recordEvents) return undefined;
    return recordPodEvent(this.clients.events, { namespace: pod.namespace ?? '', name: pod.name, uid: pod.uid }, event, { dryRun: this.options.dryRun });
  }
}

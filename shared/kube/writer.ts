// The one way kube-tidy changes a cluster, for every family (as the descheduler's evictions
// all go through its PodEvictor). What holds for every write is applied here, once:
// - DRY_RUN: every write goes through the API server's dryRun=All (validated, admitted,
//   PodDisruptionBudgets checked, nothing persisted), and no Kubernetes Event is recorded;
// - protected namespaces are never written to, whatever a caller decided;
// - a pod is changed only through a StoredPodId (uid + resourceVersion preconditions, minted
//   from what the API server returned), and DELETEd only when it was stored Succeeded or
//   Failed: anything else goes through the Eviction API, so budgets hold;
// - one Kubernetes Event per action (pod-event.ts names it after the pod's uid and action), or,
//   outside a pass, one per owner and window that counts the rest (event-series.ts);
// - a pod its owner marked request-evict-only is not evicted while it runs: its evacuation is
//   requested instead (the descheduler's EvictionsInBackground contract, evict-only.ts);
// - every write refused, by kube-tidy or the API server, is counted by reason and verb and
//   logged as a sample (write-refusals.ts).
// Nothing outside shared/kube calls a client's write methods (eslint.config.js enforces it).
import { deleteAsSeen, type DeletedAsSeen } from './delete-as-seen.js';
import type { Resource } from './direct-paths.js';
import { PatchStrategy, setHeaderOptions, type V1ConfigMap } from '@kubernetes/client-node';
import type { ObjectId, StoredId, StoredPodId } from '../model/identity.js';
import { keyOf } from '../model/identity.js';
import type { KubeClients } from './clients.js';
import { classifyKubeError, KubeRequestError, toKubeError, TransientKubeError } from './errors.js';
import { settleRemoval, type RemovalTicket } from './admission.js';
import { recordNamespaceEvent, recordObjectEvent, recordPodEvent, type PodEvent, type RecordOptions, type RecordResult, type Regarding } from './pod-event.js';
import { deletePod, evictPod, type DeleteOutcome, type EvictOutcome, type WriteResult } from './pods.js';
import { EVACUATION_REQUEST, type RemovalTarget } from './evict-only.js';
import { WriteRefusals, type WriteVerb } from './write-refusals.js';
import type { PodEventSeries } from './event-series.js';
import { FIELD_MANAGER, ownedAgain } from './written-by.js';
import { MetricsRecorder } from '../metrics/recorder.js';

export interface WriterOptions {
  dryRun: boolean;
  /** A Kubernetes Event on the pod for each action (never in a dry run). */
  recordEvents: boolean;
  protectedNamespaces: readonly string[];
  gracePeriodSeconds?: number;
  /** The process's refusals (one per process, from its host); a writer of its own otherwise. */
  refusals?: WriteRefusals;
  /** This process's name as its host knows it (the pod's HOSTNAME): its Events' reportingInstance. */
  instance?: string;
  /**
   * How a pod stored Succeeded or Failed is removed: `delete` (the default: no disruption budget
   * counts a terminal pod), or `eviction` for a process that may not delete pods (the
   * descheduler's ClusterRole after v0.36.0, descheduler#1887): the Eviction API removes a
   * terminal pod whatever its budgets say, with the same uid and resourceVersion preconditions.
   */
  terminalVia?: 'delete' | 'eviction';
  /**
   * `descheduler`: a removal's Event as the descheduler writes it (evictions.go, v0.36.0):
   * action Descheduled, reason the strategy's name; under `kube-tidy descheduler`, for what
   * reads its Events. Default: action Delete or Evict, reason Deleted or Evicted.
   */
  eventStyle?: 'kube-tidy' | 'descheduler';
  /**
   * The process's Event series (event-series.ts), one per process: a strategy's removal outside
   * a pass gets its own Event only as the first of its owner's window. Absent: one Event each.
   */
  series?: PodEventSeries;
}

/** A custom resource's address (CustomObjectsApi), e.g. KubeVirt migrations, Job kinds: the direct requests' `Resource`, one type under the name its callers know. */
export type Gvr = Resource;

/**
 * A pod marked request-evict-only that would have been evicted: `evacuation-requested` (its
 * evacuation asked for now, the eviction answered as the descheduler's contract answers it),
 * `evacuating` (one was already asked for or runs: nothing written), or `stale`/`gone`.
 */
export type EvacuationOutcome = 'evacuation-requested' | 'evacuating' | 'stale' | 'gone';

export type RemoveResult = (WriteResult<DeleteOutcome> | WriteResult<EvictOutcome> | WriteResult<EvacuationOutcome>) & {
  action: 'delete' | 'evict';
  event?: RecordResult;
  /** Sent outside every budget, and why: the unlimited ticket's reason (kube/admission.ts `unlimited`). */
  unlimited?: string;
};

const TERMINAL: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);
// KubeVirt's eviction webhook answering 429 because it started (or runs) the evacuation: the
// answer the evacuation family asked for, not a refusal (as evacuation/io/evacuate.ts reads it).
const EVACUATION_STARTED = /Eviction triggered evacuation|Evacuation in progress/;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** How the API server deletes what an object owns (DeleteOptions.propagationPolicy). */
export type Propagation = 'Background' | 'Foreground' | 'Orphan';

/** A write refused before it was sent: a protected namespace, or a pod not stored terminal. */
export class WriteRefusedError extends KubeRequestError {
  constructor(what: string, why: string) {
    super(`${what}: refused by kube-tidy: ${why}`, { kind: 'rejected', message: why, causes: [] });
  }
}

/** What the writer writes through: client-node's clients, the direct pod DELETE and eviction, and the objects' direct DELETE. */
export type WriterClients = Pick<KubeClients, 'core' | 'events' | 'custom' | 'podWrites' | 'objectWrites'>;

const CLAIMS: Resource = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };

export class ClusterWriter {
  /** Where a refused write is counted and logged (write-refusals.ts). */
  readonly refusals: WriteRefusals;

  constructor(
    private readonly clients: WriterClients,
    readonly options: WriterOptions,
  ) {
    this.refusals = options.refusals ?? new WriteRefusals(MetricsRecorder.off());
  }

  /** How this writer's Events are recorded: none in a dry run; named for this process's instance. */
  private eventOptions(): RecordOptions {
    return { dryRun: this.options.dryRun, ...(this.options.instance ? { instance: this.options.instance } : {}) };
  }

  get dryRun(): boolean {
    return this.options.dryRun;
  }

  /**
   * The custom-objects client as this writer writes through it (in standalone, fenced by the
   * Lease): for kube-tidy's own OpenReports (reports.ts), which are written apart from DRY_RUN
   * but, like every write, never by a replica that does not hold the Lease.
   */
  get reportsClient(): KubeClients['custom'] {
    return this.clients.custom;
  }

  private dry<T extends object>(params: T): T & { dryRun?: string } {
    return this.options.dryRun ? { ...params, dryRun: 'All' } : params;
  }

  /**
   * A DELETE's body: the API server reads DeleteOptions from the body when there is one and then
   * ignores the query's dryRun (apiserver handlers/delete.go), so a dry run is said in the body too.
   */
  private deleteOptions<P extends object>(preconditions: P): { preconditions: P; dryRun?: string[] } {
    return { preconditions, ...(this.options.dryRun ? { dryRun: ['All'] } : {}) };
  }

  /** A pod leaves through removePod alone (DELETEd only when stored terminal, else evicted): never a plain object DELETE, whatever rule asks. */
  private notAPod(what: string, resource: Resource): void {
    if (resource.group !== '' || resource.plural !== 'pods') return;
    this.refusals.note('delete', 'not-a-pod-removal', what);
    throw new WriteRefusedError(what, 'a pod is removed by removePod: the Eviction API unless stored terminal, so a PodDisruptionBudget holds');
  }

  private guard(what: string, namespace: string | undefined, verb: WriteVerb): void {
    if (!namespace || !this.options.protectedNamespaces.includes(namespace)) return;
    this.refusals.note(verb, 'protected-namespace', what);
    throw new WriteRefusedError(what, `namespace ${namespace} is protected`);
  }

  /** A write's outcome that says the API server refused it (a precondition, a budget), counted as such. */
  private said<R extends { outcome: string; message?: string; disruptionBudget?: boolean }>(verb: WriteVerb, what: string, r: R): R {
    if (r.outcome === 'stale' || r.outcome === 'conflict') this.refusals.note(verb, 'stale', what, r.message);
    else if (r.outcome === 'blocked' && !EVACUATION_STARTED.test(r.message ?? ''))
      this.refusals.note(verb, r.disruptionBudget ? 'disruption-budget' : 'eviction-blocked', what, r.message);
    return r;
  }

  /**
   * Sends a removal with its admission ticket and settles the ticket on the answer, once: the
   * one place a removal is charged (kube/admission.ts `removalCharged`). A call that throws may
   * have removed the object (a timeout, a 5xx: `failed`) and is charged, unless it was refused
   * (by kube-tidy before sending, or by the API server: RBAC, validation), which removed nothing.
   */
  private async settling<R>(ticket: RemovalTicket, send: () => Promise<R>, outcome: (r: R) => string): Promise<R> {
    let answer: { outcome: string } | undefined;
    try {
      const r = await send();
      answer = { outcome: outcome(r) };
      return r;
    } catch (e) {
      answer = e instanceof TransientKubeError ? { outcome: 'failed' } : e instanceof KubeRequestError ? { outcome: 'refused' } : undefined;
      throw e;
    } finally {
      settleRemoval(ticket, answer);
    }
  }

  /**
   * Removes a pod the core selected: DELETE when it was stored Succeeded or Failed, the
   * Eviction API otherwise; both tied to the stored uid and resourceVersion, so a pod that
   * changed since it was read answers `stale` and is left for the next decision. A pod that
   * would be evicted and whose owner marked it request-evict-only (`pod.evictOnly`, from
   * evict-only.ts's removalTarget) is not evicted: its evacuation is requested instead, by
   * `requester`, and the evacuation family takes it from there (a live migration for KubeVirt).
   * Only a RemovalTarget is taken, never a bare StoredPodId: every caller says what the rule
   * makes of the pod (removalTarget(pod), or `evictOnly: false` with its reason). Only with an
   * admission ticket, settled here on the API server's answer (before the Event is recorded).
   */
  async removePod(
    pod: RemovalTarget,
    ticket: RemovalTicket,
    note: string,
    { ownEvent, requester = 'kube-tidy', strategy }: { ownEvent?: () => boolean; requester?: string; strategy?: string } = {},
  ): Promise<RemoveResult> {
    const terminal = TERMINAL.has(pod.phase);
    const evictOnly = terminal ? false : pod.evictOnly;
    const result = await this.settling(
      ticket,
      () => (evictOnly ? this.requestEvacuation(pod, evictOnly.underWay, requester) : this.sendRemoval(pod, terminal)),
      (r) => r.outcome,
    );
    if (ticket.unlimited !== undefined) result.unlimited = ticket.unlimited;
    if (result.outcome === 'evacuation-requested' && (ownEvent?.() ?? true)) {
      const recorded = await this.recordEvent(pod, {
        reason: 'EvacuationRequested',
        action: 'Evict',
        type: 'Normal',
        note: `${note}; the pod is marked request-evict-only: its evacuation is requested instead of an eviction`,
      });
      if (recorded) result.event = recorded;
    }
    if (result.outcome === 'deleted' || result.outcome === 'evicted') {
      const recorded = await this.removedEvent(pod, result.outcome === 'deleted', note, ownEvent, strategy);
      if (recorded) result.event = recorded;
    }
    return result;
  }

  /** The DELETE (stored terminal) or the eviction, as the pod was stored; refusals counted. */
  private async sendRemoval(pod: RemovalTarget, terminal: boolean): Promise<RemoveResult> {
    const byDelete = terminal && this.options.terminalVia !== 'eviction';
    const verb = byDelete ? 'delete' : 'evict';
    const what = `${verb} pod ${keyOf(pod)}`;
    this.guard(what, pod.namespace, verb);
    const target = { namespace: pod.namespace!, name: pod.name, uid: pod.uid, resourceVersion: pod.resourceVersion };
    const opts = { dryRun: this.options.dryRun, gracePeriodSeconds: this.options.gracePeriodSeconds };
    let result: RemoveResult;
    try {
      result = byDelete
        ? { action: 'delete', ...(await deletePod(this.clients.podWrites, target, opts)) }
        : { action: 'evict', ...(await evictPod(this.clients.podWrites, target, opts)) };
    } catch (e) {
      throw this.refusals.noted(verb, what, e);
    }
    return this.said(verb, what, result);
  }

  /** The removed pod's Event, unless a pass's budget or the process's series counts it instead. */
  private async removedEvent(
    pod: RemovalTarget,
    deleted: boolean,
    note: string,
    ownEvent: (() => boolean) | undefined,
    strategy: string | undefined,
  ): Promise<RecordResult | undefined> {
    const as = this.options.eventStyle === 'descheduler' ? { reason: strategy || 'NotSet', action: 'Descheduled' } : undefined;
    const event = as ?? { reason: deleted ? 'Deleted' : 'Evicted', action: deleted ? 'Delete' : 'Evict' };
    // Asked only once the pod is removed: a pass's event budget (cleanup/io/event-budget.ts),
    // else, for a strategy's removal outside a pass (an event, a due act), the process's
    // series (event-series.ts): the first of its owner's window has its own Event, the rest count.
    const series = this.options.recordEvents && strategy ? this.options.series : undefined;
    const own = ownEvent
      ? ownEvent()
      : series
        ? series.ownEvent({ namespace: pod.namespace!, name: pod.name, owner: pod.owner, ...event, strategy: strategy! })
        : true;
    return own ? await this.recordEvent(pod, { ...event, type: 'Normal', note }) : undefined;
  }

  /**
   * The eviction of a request-evict-only pod, answered as the descheduler's contract answers
   * it: the evacuation family's request annotation (`requester` as its value), written only if
   * the pod is still as stored (resourceVersion), in a dry run only through the API server's
   * dry run. Nothing is asked twice: a pod already requested or under way answers `evacuating`.
   */
  private async requestEvacuation(pod: StoredPodId, underWay: string | undefined, requester: string): Promise<RemoveResult> {
    const dryRun = this.options.dryRun;
    if (underWay)
      return { action: 'evict', outcome: 'evacuating', dryRun, message: `request-evict-only: not evicted; its evacuation is under way (${underWay})` };
    const w = await this.annotatePod(pod, { [EVACUATION_REQUEST]: requester });
    if (w.outcome === 'conflict') return { action: 'evict', outcome: 'stale', dryRun, message: 'the pod changed since it was read' };
    if (w.outcome === 'gone') return { action: 'evict', outcome: 'gone', dryRun, message: 'the pod is gone' };
    return {
      action: 'evict',
      outcome: 'evacuation-requested',
      dryRun,
      message: `request-evict-only: not evicted; evacuation requested (${EVACUATION_REQUEST}=${requester})`,
    };
  }

  /**
   * Eviction tied to the uid only: the evacuation path, right after its own annotation write.
   * Its ticket is settled on the answer as an evacuation's start: evicted, or refused (429: the
   * attempt stays Started and is driven again until its deadline without asking again, or
   * KubeVirt started its migration), the evacuation is under way and charged as one asked for;
   * a pod changed or gone spends nothing.
   */
  async evictPodForMigration(pod: StoredId, ticket: RemovalTicket): Promise<WriteResult<EvictOutcome>> {
    const what = `evict pod ${keyOf(pod)}`;
    const send = async () => {
      this.guard(what, pod.namespace, 'evict');
      try {
        return this.said(
          'evict',
          what,
          await evictPod(this.clients.podWrites, { namespace: pod.namespace!, name: pod.name, uid: pod.uid }, { dryRun: this.options.dryRun }),
        );
      } catch (e) {
        throw this.refusals.noted('evict', what, e);
      }
    };
    return this.settling(ticket, send, (r) => (r.outcome === 'blocked' ? 'evacuation-requested' : r.outcome));
  }

  /** Merge-patch annotations (null removes) if the pod is still at its stored resourceVersion. */
  async annotatePod(
    pod: StoredId,
    annotations: Record<string, string | null>,
  ): Promise<{ outcome: 'written'; resourceVersion: string } | { outcome: 'conflict' | 'gone' }> {
    const what = `annotate pod ${keyOf(pod)}`;
    this.guard(what, pod.namespace, 'patch');
    try {
      const written = await this.clients.core.patchNamespacedPod(
        this.dry({ namespace: pod.namespace!, name: pod.name, body: { metadata: { resourceVersion: pod.resourceVersion, annotations } } }),
        mergePatch,
      );
      return { outcome: 'written', resourceVersion: written.metadata?.resourceVersion ?? pod.resourceVersion };
    } catch (e) {
      const kind = classifyKubeError(e).kind;
      if (kind === 'conflict') return this.said('patch', what, { outcome: 'conflict' as const });
      if (kind === 'not-found') return { outcome: 'gone' };
      throw this.refusals.noted('patch', what, toKubeError(e, what));
    }
  }

  /** Merge-patch a node (annotations, cordon), tied to its resourceVersion when one is given. */
  async patchNode(node: ObjectId, body: { metadata?: { annotations?: Record<string, string | null> }; spec?: { unschedulable?: boolean } }): Promise<void> {
    const metadata = { ...body.metadata, ...(node.resourceVersion ? { resourceVersion: node.resourceVersion } : {}) };
    try {
      await this.clients.core.patchNode(this.dry({ name: node.name, body: { ...body, metadata } }), mergePatch);
    } catch (e) {
      throw this.refusals.noted('patch', `patch node ${node.name}`, toKubeError(e, `patch node ${node.name}`));
    }
  }

  /**
   * Create the custom object that starts an evacuation (a KubeVirt migration, an EvictionRequest);
   * AlreadyExists is success (the deterministic name was taken by us). A removal begun: only with
   * its ticket, settled on the answer, either way as an evacuation asked for.
   */
  async startEvacuation(
    gvr: Gvr,
    namespace: string,
    body: { metadata: { name: string } } & Record<string, unknown>,
    ticket: RemovalTicket,
  ): Promise<'created' | 'exists'> {
    const what = `create ${gvr.plural} ${namespace}/${body.metadata.name}`;
    const send = async (): Promise<'created' | 'exists'> => {
      this.guard(what, namespace, 'create');
      try {
        await this.clients.custom.createNamespacedCustomObject(this.dry({ ...gvr, namespace, body }));
        return 'created';
      } catch (e) {
        if (classifyKubeError(e).kind === 'conflict') return 'exists';
        throw this.refusals.noted('create', what, toKubeError(e, what));
      }
    };
    return this.settling(ticket, send, () => 'evacuation-requested');
  }

  /**
   * Delete a custom object the cluster's workloads own (a job copy in a MultiKueue worker), with
   * preconditions on what was read when `id` carries them. Already gone is done; a failed
   * precondition is `stale`. A removal: only with its ticket, settled on the answer.
   */
  async deleteObject(gvr: Gvr, id: ObjectId, ticket: RemovalTicket, opts: { propagationPolicy?: 'Background' | 'Foreground' } = {}): Promise<DeletedAsSeen> {
    return this.settling(
      ticket,
      () => this.deleteCustom(gvr, id, opts),
      (r) => r,
    );
  }

  /**
   * Delete a custom object kube-tidy made itself (an evacuation's migration, its EvictionRequest):
   * taking back its own request, not a removal of a workload, so no ticket. Preconditions as
   * `deleteObject`'s.
   */
  async deleteOwnObject(gvr: Gvr, id: ObjectId): Promise<DeletedAsSeen> {
    return this.deleteCustom(gvr, id, {});
  }

  private async deleteCustom(gvr: Gvr, id: ObjectId, opts: { propagationPolicy?: 'Background' | 'Foreground' }): Promise<DeletedAsSeen> {
    const what = `delete ${gvr.plural} ${keyOf(id)}`;
    this.guard(what, id.namespace, 'delete');
    this.notAPod(what, gvr);
    const preconditions = id.uid ? { uid: id.uid, ...(id.resourceVersion ? { resourceVersion: id.resourceVersion } : {}) } : undefined;
    const body = {
      ...(preconditions ? { preconditions } : {}),
      ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
      ...(this.options.dryRun ? { dryRun: ['All'] } : {}),
    };
    const params = { ...gvr, name: id.name, body, ...(this.options.dryRun ? { dryRun: 'All' } : {}) };
    return deleteAsSeen(what, this.refusals, () =>
      id.namespace
        ? this.clients.custom.deleteNamespacedCustomObject({ ...params, namespace: id.namespace })
        : this.clients.custom.deleteClusterCustomObject(params),
    );
  }

  /**
   * Merge-patch an object of any group (or its status subresource), tied to the
   * resourceVersion it was read at when `id` carries one: `conflict` then means it changed
   * since, and the caller re-reads. For APIs client-node has no types for (lifecycle.k8s.io).
   */
  async patchObject(gvr: Gvr, id: ObjectId, body: Record<string, unknown>, opts: { status?: boolean } = {}): Promise<'written' | 'conflict' | 'gone'> {
    const what = `patch ${gvr.plural}${opts.status ? '/status' : ''} ${keyOf(id)}`;
    this.guard(what, id.namespace, 'patch');
    const metadata = { ...(body.metadata as object | undefined), ...(id.resourceVersion ? { resourceVersion: id.resourceVersion } : {}) };
    const params = this.dry({ ...gvr, namespace: id.namespace ?? '', name: id.name, body: { ...body, metadata } });
    try {
      if (opts.status) await this.clients.custom.patchNamespacedCustomObjectStatus(params, mergePatch);
      else await this.clients.custom.patchNamespacedCustomObject(params, mergePatch);
      return 'written';
    } catch (e) {
      const kind = classifyKubeError(e).kind;
      if (kind === 'conflict') return this.said('patch', what, { outcome: 'conflict' as const }).outcome;
      if (kind === 'not-found') return 'gone';
      throw this.refusals.noted('patch', what, toKubeError(e, what));
    }
  }

  /**
   * Create or replace a ConfigMap only if it is still what was read (`seen`): the stored
   * ConfigMap as written (its new resourceVersion), or false on a conflict.
   */
  async writeConfigMap(namespace: string, name: string, seen: V1ConfigMap | undefined, data: Record<string, string>): Promise<V1ConfigMap | false> {
    const what = `write configmap ${namespace}/${name}`;
    const verb = seen ? 'update' : 'create';
    this.guard(what, namespace, verb);
    try {
      // Under kube-tidy's field manager: its state trusts only what that manager wrote (written-by.ts).
      if (!seen)
        return await this.clients.core.createNamespacedConfigMap(
          this.dry({ namespace, body: { metadata: { name, namespace }, data }, fieldManager: FIELD_MANAGER }),
        );
      return await this.clients.core.replaceNamespacedConfigMap(
        this.dry({
          namespace,
          name,
          body: { metadata: { name, namespace, resourceVersion: seen.metadata?.resourceVersion, ...ownedAgain(seen, data) }, data },
          fieldManager: FIELD_MANAGER,
        }),
      );
    } catch (e) {
      if (classifyKubeError(e).kind === 'conflict') return false;
      throw this.refusals.noted(verb, what, toKubeError(e, what));
    }
  }

  /**
   * Delete a ConfigMap only if it is still what was read (`seen`: its uid and resourceVersion):
   * `stale` when someone wrote it since, `gone` when it is already gone. For a store kube-tidy
   * retired once its content was carried elsewhere (evacuation/io/legacy-slots.ts).
   */
  async deleteConfigMap(namespace: string, name: string, seen: V1ConfigMap): Promise<DeletedAsSeen> {
    const what = `delete configmap ${namespace}/${name}`;
    this.guard(what, namespace, 'delete');
    const preconditions = { uid: seen.metadata?.uid, resourceVersion: seen.metadata?.resourceVersion };
    return deleteAsSeen(what, this.refusals, () =>
      this.clients.core.deleteNamespacedConfigMap(this.dry({ namespace, name, body: this.deleteOptions(preconditions) })),
    );
  }

  /**
   * Delete a PersistentVolumeClaim only if it is still as read just before (its uid and
   * resourceVersion: a condition that flipped since, or a claim recreated under the same name,
   * answers `stale`). Cleanup beyond pods (shared/objects): the only way kube-tidy deletes a claim.
   * A removal: only with its ticket, settled on the answer.
   */
  async deleteClaim(claim: StoredId, ticket: RemovalTicket): Promise<DeletedAsSeen> {
    return this.settling(
      ticket,
      () => this.deletedAsRead(`delete persistentvolumeclaim ${keyOf(claim)}`, CLAIMS, claim, {}),
      (r) => r,
    );
  }

  /**
   * Delete an object cleanup beyond pods decided on (a Job, a Workload's owner), only if it is
   * still the version that was read (its uid and resourceVersion: written since, or recreated
   * under its name, answers `stale`; already gone, `gone`), with the propagation its family asks
   * for. Sent directly (direct-objects.ts), its answer (the whole object) unread, as a pod's DELETE.
   * A removal: only with its ticket, settled on the answer.
   */
  async deleteAsRead(resource: Resource, id: StoredId, ticket: RemovalTicket, opts: { propagationPolicy?: Propagation } = {}): Promise<DeletedAsSeen> {
    return this.settling(
      ticket,
      () => this.deletedAsRead(`delete ${resource.plural} ${keyOf(id)}`, resource, id, opts),
      (r) => r,
    );
  }

  private async deletedAsRead(what: string, resource: Resource, id: StoredId, opts: { propagationPolicy?: Propagation }): Promise<DeletedAsSeen> {
    this.guard(what, id.namespace, 'delete');
    this.notAPod(what, resource);
    // A Namespace (a TTL rule's, cluster-scoped: no namespace of its own) is the namespace it would take with it.
    if (resource.group === '' && resource.plural === 'namespaces') this.guard(what, id.name, 'delete');
    const body = {
      ...this.deleteOptions({ uid: id.uid, resourceVersion: id.resourceVersion }),
      ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
    };
    return deleteAsSeen(what, this.refusals, () =>
      this.clients.objectWrites.deleteNamespacedObject({
        resource,
        ...(id.namespace ? { namespace: id.namespace } : {}),
        name: id.name,
        body,
        ...(this.options.dryRun ? { dryRun: 'All' } : {}),
      }),
    );
  }

  /** Create a namespace (kube-tidy's own, for its ledger); one that exists is fine. */
  async createNamespace(name: string): Promise<'created' | 'exists'> {
    try {
      await this.clients.core.createNamespace(this.dry({ body: { metadata: { name } } }));
      return 'created';
    } catch (e) {
      if (classifyKubeError(e).kind === 'conflict') return 'exists';
      throw this.refusals.noted('create', `create namespace ${name}`, toKubeError(e, `create namespace ${name}`));
    }
  }

  /** An Event on a namespace summing up what a pass did there (not in a dry run, nor with events off). */
  async recordNamespaceEvent(namespace: string, event: PodEvent & { once: string }): Promise<RecordResult | undefined> {
    if (!this.options.recordEvents) return undefined;
    return recordNamespaceEvent(this.clients.events, namespace, event, this.eventOptions());
  }

  /** A Kubernetes Event on an object cleanup beyond pods removed (not in a dry run, nor with events off). Best effort. */
  async recordObjectEvent(about: Regarding, event: PodEvent): Promise<RecordResult | undefined> {
    if (!this.options.recordEvents) return undefined;
    return recordObjectEvent(this.clients.events, about, event, this.eventOptions());
  }

  /**
   * An object cleanup beyond pods removed, told as a pod's removal outside a pass is (issue 47):
   * with the process's series, its own Event only as the first of its namespace, kind and rule's
   * window (`by`: the rule); the rest are counted into one Event about the namespace. Without a
   * series (a writer over other clients, a dry run), its own Event. Best effort.
   */
  async recordObjectRemoved(removedObject: Regarding, event: PodEvent, by: string): Promise<RecordResult | undefined> {
    if (!this.options.recordEvents) return undefined;
    // A removed Namespace is terminating and refuses new content: it is told as the cluster-scoped object it is (in default).
    const about = removedObject.kind === 'Namespace' && (removedObject.apiVersion ?? 'v1') === 'v1' ? { ...removedObject, namespace: '' } : removedObject;
    const series = this.options.series;
    const removed = { namespace: about.namespace, name: about.name, kind: about.kind, reason: event.reason, action: event.action, strategy: by };
    // A cluster-scoped object (a ClusterRole) has no namespace to count in, and a Namespace counts in itself: each its own.
    const own = !series || about.namespace === '' || about.kind === 'Namespace' || series.ownEvent(removed);
    return own ? await this.recordObjectEvent(about, event) : undefined;
  }

  /** A Kubernetes Event on the pod (not in a dry run, nor with events off). Best effort. */
  async recordEvent(pod: { namespace?: string; name: string; uid: string }, event: PodEvent): Promise<RecordResult | undefined> {
    if (!this.options.recordEvents) return undefined;
    return recordPodEvent(this.clients.events, { namespace: pod.namespace ?? '', name: pod.name, uid: pod.uid }, event, this.eventOptions());
  }
}

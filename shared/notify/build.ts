// Pure: each kind of data as the CloudEvent kube-tidy sends (the id, the time and the source's
// base come in). `source` is `<EVENTS_SOURCE>/<function>`: the installation (default `kube-tidy`,
// or a URI naming the cluster) and the function that decided; `subject` the object, as the API
// path names it below the namespace. The extensions repeat what a Trigger filters on.
import {
  dataschemaOf,
  podType,
  TYPES,
  type CascadeData,
  type DataType,
  type DefragStepData,
  type EvacuationChange,
  type ObjectDecisionData,
  type ObjectOrigin,
  type OrphanData,
  type OutEvent,
  type PassSummaryData,
  type PodDecision,
  type PodsDecided,
} from './types.js';

export interface Stamp {
  id: string;
  /** Epoch ms. */
  time: number;
  /** EVENTS_SOURCE: what names this installation. */
  source: string;
}

/** The function whose decision it is, for `source`. */
const FUNCTION_OF = { event: 'podTerminated', sweep: 'sweep', invoke: 'invoke', shard: 'sweep', cli: 'cli', 'orphan-sweep': 'orphanSweep' } as const;

function event(stamp: Stamp, fn: string, type: string, dataType: DataType, data: unknown, subject?: string, extensions?: Record<string, string>): OutEvent {
  return {
    id: stamp.id,
    type,
    source: `${stamp.source}/${fn}`,
    ...(subject ? { subject } : {}),
    time: new Date(stamp.time).toISOString(),
    dataschema: dataschemaOf(dataType),
    data,
    ...(extensions ? { extensions } : {}),
  };
}

export const podSubject = (namespace: string, name: string) => `namespaces/${namespace}/pods/${name}`;

/** Strips what is undefined: JSON has no undefined, and the schemas forbid nulls. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function podDecisionEvent(stamp: Stamp, d: PodDecision): OutEvent {
  return event(stamp, FUNCTION_OF[d.origin], podType(d.outcome), 'pod-decision', defined(d), podSubject(d.namespace, d.name), {
    namespace: d.namespace,
    strategy: d.strategy,
    origin: d.origin,
    dryrun: String(d.dryRun),
  });
}

export function podsDecidedEvent(stamp: Stamp, b: PodsDecided): OutEvent {
  return event(stamp, FUNCTION_OF[b.origin], TYPES.podsDecided, 'pods-decided', { ...b, decisions: b.decisions.map(defined) }, `passes/${b.pass}`, {
    origin: b.origin,
    dryrun: String(b.dryRun),
  });
}

export function cascadeEvent(stamp: Stamp, c: CascadeData, plural: string): OutEvent {
  return event(stamp, 'jobDeleted', TYPES.cascade, 'multikueue-cascade', c, `namespaces/${c.namespace}/${plural}/${c.name}`, {
    worker: c.worker,
    dryrun: String(c.dryRun),
  });
}

export function orphanEvent(stamp: Stamp, o: OrphanData, plural: string): OutEvent {
  return event(stamp, 'orphanSweep', TYPES.orphan, 'multikueue-orphan', defined(o), `namespaces/${o.namespace}/${plural}/${o.name}`, {
    worker: o.worker,
    dryrun: String(o.dryRun),
  });
}

export function evacuationEvent(stamp: Stamp, e: EvacuationChange): OutEvent {
  return event(stamp, 'evacuation', TYPES.evacuation, 'evacuation-change', defined(e), podSubject(e.namespace, e.name), {
    namespace: e.namespace,
    dryrun: String(e.dryRun),
  });
}

export function defragEvent(stamp: Stamp, s: DefragStepData): OutEvent {
  const pod = s.move?.pod;
  return event(stamp, 'defrag', TYPES.defrag, 'defrag-step', defined(s), pod ? podSubject(pod.namespace, pod.name) : undefined, { dryrun: String(s.dryRun) });
}

export function passCompletedEvent(stamp: Stamp, p: PassSummaryData): OutEvent {
  return event(stamp, FUNCTION_OF[p.kind], TYPES.passCompleted, 'pass-summary', defined(p), p.pass ? `passes/${p.pass}` : undefined, {
    dryrun: String(p.dryRun),
  });
}

/**
 * The function whose object decision it is, for `source`: the event path and the due list are
 * the object event target's.
 */
const OBJECT_FUNCTION_OF: Record<ObjectOrigin, string> = { event: 'objectUpdated', due: 'objectUpdated', sweep: 'sweep', invoke: 'invoke', cli: 'cli' };

/**
 * The resource's plural as the API path names it (jobs, persistentvolumeclaims, workloads), under
 * its namespace; a cluster-scoped object (a ttl rule's Namespace or ClusterRole: its target has no
 * namespace) as the other subjects name one, without a namespace: `namespaces/x`, `clusterroles/y`.
 */
export const objectSubject = (o: { kind: string; namespace: string; name: string; target?: { namespace: string } }) => {
  const path = `${o.kind.toLowerCase()}s/${o.name}`;
  return o.target?.namespace === '' || o.namespace === '' ? path : `namespaces/${o.namespace}/${path}`;
};

export function objectDecisionEvent(stamp: Stamp, d: ObjectDecisionData): OutEvent {
  return event(stamp, OBJECT_FUNCTION_OF[d.origin], TYPES.objectDecided, 'object-decision', defined(d), objectSubject(d), {
    kind: d.kind,
    namespace: d.namespace,
    rule: d.rule,
    mode: d.mode,
    outcome: d.outcome,
    origin: d.origin,
    dryrun: String(d.dryRun),
  });
}

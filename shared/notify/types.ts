// What kube-tidy tells the world it decided, as CloudEvents (docs/observing.md "Decisions as CloudEvents").
// Every type is under one prefix and versioned: a receiver (a Knative Trigger, a Pub/Sub
// subscription's filter) selects by the exact type, so a pod's type names its outcome. A type's
// data changes only compatibly (new optional fields); anything else is a `.v2` beside it.
// Each data type has a JSON Schema in the repository (schemas/events/<data type>.v1.json),
// named by the event's `dataschema`; schemas.test.ts checks every event built here against it.

import type { PodOutcome, PodResult } from '../model/pod-result.js';

export const EVENT_PREFIX = 'dev.kube-tidy.';
export const SCHEMA_BASE = 'https://kube-tidy.dev/schemas/events/';

/** Every way one pod's removal can end (model/pod-result.ts), one event type each. */
export { POD_OUTCOMES, type PodOutcome } from '../model/pod-result.js';

/** Where a pod decision was made: a pod event (or its due timer), a pass, a shard of a pass, the CLI. */
export type Origin = 'event' | 'sweep' | 'invoke' | 'shard' | 'cli';

/**
 * A decision made at a pod's eligibility (shared/cleanup/due) rather than on an event: the time it was
 * scheduled for and what acted then. A field, not another origin: `origin` stays `event` for a
 * receiver that filters on it, and a new optional field is a compatible change to a `.v1`.
 */
export interface DueAct {
  /** The eligibility time it was scheduled for (RFC 3339). */
  at: string;
  /** timer: the instance that saw the pod's event; tick: any instance reading the due list. */
  by: 'timer' | 'tick';
}
/** Whose pass a pass.completed sums up. */
export type PassKind = 'sweep' | 'invoke' | 'shard' | 'cli' | 'orphan-sweep';

export const podType = (outcome: PodOutcome) => `${EVENT_PREFIX}pod.${outcome}.v1` as const;
export const TYPES = {
  podsDecided: `${EVENT_PREFIX}pods.decided.v1`,
  cascade: `${EVENT_PREFIX}multikueue.cascade.v1`,
  orphan: `${EVENT_PREFIX}multikueue.orphan.v1`,
  evacuation: `${EVENT_PREFIX}evacuation.changed.v1`,
  defrag: `${EVENT_PREFIX}defrag.step.v1`,
  passCompleted: `${EVENT_PREFIX}pass.completed.v1`,
  objectDecided: `${EVENT_PREFIX}object.decided.v1`,
} as const;

/** The data types, each with its schema file schemas/events/<name>.v1.json. */
export const DATA_TYPES = [
  'pod-decision',
  'pods-decided',
  'multikueue-cascade',
  'multikueue-orphan',
  'evacuation-change',
  'defrag-step',
  'pass-summary',
  'object-decision',
] as const;
export type DataType = (typeof DATA_TYPES)[number];
export const dataschemaOf = (t: DataType) => `${SCHEMA_BASE}${t}.v1.json`;

/** One pod decision carried out (or held back), as the API server answered it: the one pass result (model/pod-result.ts) and where it was made. */
export type PodDecision = PodResult & {
  node?: string;
  profile: string;
  origin: Origin;
  /** The pass it belongs to (a sweep, invoke or shard), when in one. */
  pass?: string;
  /** Acted on at its eligibility by a due timer or tick, not on an event. */
  due?: DueAct;
};

/** Many decisions of one pass in one event, in the policy's order: past the pass's per-pod events. */
export interface PodsDecided {
  origin: Origin;
  pass: string;
  dryRun: boolean;
  /** 1-based position of this batch in its pass. */
  batch: number;
  decisions: PodDecision[];
}

export interface CascadeData {
  worker: string;
  kind: string;
  namespace: string;
  name: string;
  outcome: string;
  why: string;
  dryRun: boolean;
}

export interface OrphanData {
  worker: string;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  /** What the sweep decided: delete, evict, report, deferred. */
  action: string;
  /** What the API server answered for a delete or an evict. */
  result?: string;
  /** Why a delete or evict sent went outside the brakes' budgets (MultiKueue's removals in a worker are, on purpose). */
  outsideBudgets?: string;
  reason: string;
  dryRun: boolean;
}

export interface EvacuationChange {
  namespace: string;
  name: string;
  uid: string;
  /** Idle, Started, Backoff. */
  from: string;
  to: string;
  attempt?: number;
  /** Why: how it ended (the result annotation) or what it waits for. */
  reason?: string;
  dryRun: boolean;
}

export interface DefragStepData {
  outcome: string;
  dryRun: boolean;
  move?: { step: number; pod: { namespace: string; name: string; uid: string }; from: string; to: string; frees: string; reason: string };
  verified?: { pod: string; expected: string; landed?: string; asPlanned: boolean; drift?: string };
  message?: string;
  nodesFreed?: number;
  /** Moves the plan still holds after this step. */
  movesLeft?: number;
}

export interface PassSummaryData {
  kind: PassKind;
  /** The pass's id (sweep, invoke, shard); absent for an orphan sweep. */
  pass?: string;
  dryRun: boolean;
  outcome: string;
  durationMs?: number;
  /** Summary counts, never the per-pod lists (pages, podsSeen, selected, kept, outcomes, per worker for an orphan sweep...). */
  counts: Record<string, unknown>;
  failures: { transient: number; refused: number };
  /** How this pass's pod decisions went out: one event each, then in batches. */
  decisions?: { single: number; batched: number; batches: number };
}

/** Every way an object decision of cleanup beyond pods can end (shared/objects/io/act.ts ObjectOutcome). */
export const OBJECT_OUTCOMES = ['reported', 'deleted', 'evicted', 'blocked', 'deferred', 'kept', 'stale', 'gone', 'failed', 'refused'] as const;
export type ObjectOutcomeName = (typeof OBJECT_OUTCOMES)[number];

/** Where an object decision was made (shared/objects/io/pass.ts ObjectsOrigin): `due` is an object acted on at its eligibility. */
export type ObjectOrigin = 'event' | 'due' | 'sweep' | 'invoke' | 'cli';

/**
 * One object a rule of cleanup beyond pods decided on (a finished Job, an unused claim, a finished
 * Workload), and what came of it. The data of dev.kube-tidy.object.decided.v1: one type for every
 * outcome (a report rule's `reported` included), the outcome an extension a Trigger filters on.
 */
export interface ObjectDecisionData {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  rule: string;
  mode: 'report' | 'delete';
  outcome: ObjectOutcomeName;
  /** The condition that matched, as `type=status (reason)`. */
  condition: string;
  /** Since when it has held (RFC 3339: its lastTransitionTime). */
  since: string;
  reason: string;
  /** What is (or would be) removed: the object, or a finished Workload's controller owner. */
  target: { apiVersion: string; kind: string; namespace: string; name: string; uid: string };
  dryRun: boolean;
  message?: string;
  origin: ObjectOrigin;
}

/** A CloudEvent as the outbox holds it: plain data, encoded by the sink only when it is sent. */
export interface OutEvent {
  id: string;
  type: string;
  source: string;
  subject?: string;
  time: string;
  dataschema: string;
  data: unknown;
  /** Extension attributes a Trigger can filter on (lowercase names, string values). */
  extensions?: Record<string, string>;
}

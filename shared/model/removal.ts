// What a removal is asked about and answered with, before it is sent: the leaf types that the
// admission port (kube/admission.ts) and the brakes, which implement it (brakes/), share. Kept
// here rather than in either room so the port can name them without importing the brakes.
import type { Pod } from './objects.js';

/** What a removal is charged against: where the pod is and what controls it. */
export interface Subject {
  /** What is removed: absent for a pod (every family's), else an object kind of cleanup beyond pods, counted on its own. */
  kind?: string;
  namespace: string;
  /** Unscheduled pods belong to no node: no node meter applies to them (as the descheduler's limiter). */
  node?: string;
  /** `namespace/Kind/name` of the pod's controller (ownerReferences[controller=true]); none for a bare pod. */
  owner?: string;
}

/** The pod's subject, from the stored object. */
export function subjectOf(pod: Pod): Subject {
  const m = pod.metadata;
  const namespace = m.namespace ?? '';
  const ctl = m.ownerReferences?.find((o) => o.controller === true);
  return {
    namespace,
    ...(pod.spec?.nodeName ? { node: pod.spec.nodeName } : {}),
    ...(ctl ? { owner: `${namespace}/${ctl.kind}/${ctl.name}` } : {}),
  };
}

/** Why a pod was held back, and when that budget frees. */
export interface Deferral {
  /** `ledger`: the ledger was rebuilt blind (unreadable, deleted or replaced), so what it guards counts as spent. */
  kind: 'budget' | 'abort' | 'ledger';
  /** The setting: maxNoOfPodsToEvictTotal, kubeTidy.brakes.rates[0], kubeTidy.brakes.abort. */
  budget: string;
  scope: string;
  key?: string;
  limit?: number;
  window?: string;
  /** When the window ends (RFC 3339); an abort has none: resuming is a deliberate act. */
  freesAt?: string;
  why: string;
}

/** A removal let through: what it holds until the API server's answer is told (the counters it charges). */
export interface Ticket {
  readonly counters: readonly string[];
}

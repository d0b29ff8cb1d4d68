// One ttl decision carried out: deleted as the read it was decided on saw it, tied to that uid
// and resourceVersion (as a Job is, act.ts `asDecided`): its expiry is read from that version's
// labels, annotations and creation time alone, and the time since only grows, so a read again
// would decide the same unless the object was written since, which the precondition refuses
// (`stale`: the next pass decides again). Cluster-scoped kinds (a Namespace) are deleted without
// a namespace in their path; the writer refuses a protected Namespace by its name too. A Pod
// leaves as every pod does, whatever rule chose it: DELETEd only when stored terminal, else
// through the Eviction API (a PodDisruptionBudget holds), tied to the same uid and
// resourceVersion; the writer refuses a pod's plain DELETE.
import type { RemovalTicket } from '../../kube/admission.js';
import { removalTarget } from '../../kube/evict-only.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Stored } from '../../model/identity.js';
import type { Pod } from '../../model/objects.js';
import type { ObjectDecision } from '../core/model.js';
import { failedWith, type ObjectResult } from './act.js';
import type { ServedKind } from './ttl-read.js';

/** `ticket`: the admission's unit for this removal, which the writer settles on the answer (given back by the caller when nothing was sent). */
export async function actOnTtl(writer: ClusterWriter, served: ServedKind | undefined, d: ObjectDecision, ticket: RemovalTicket): Promise<ObjectResult> {
  const dryRun = writer.dryRun;
  if (d.mode === 'report') return { decision: d, outcome: 'reported', dryRun };
  // Decided on a read of its kind, so it is served; a policy changed since the read is the next pass's.
  if (!served) return { decision: d, outcome: 'refused', dryRun, message: `${d.apiVersion}/${d.kind} was not read in this pass` };
  const id = { ...(served.namespaced ? { namespace: d.namespace } : {}), name: d.name, uid: d.uid, resourceVersion: d.resourceVersion };
  try {
    if (d.pod) return await removePodAsRead(writer, d, d.pod, ticket);
    const outcome = await writer.deleteAsRead(served.resource, id, ticket, d.propagationPolicy ? { propagationPolicy: d.propagationPolicy } : {});
    return {
      decision: d,
      outcome,
      dryRun,
      ...(outcome === 'stale' ? { message: 'written since it was read (or recreated under its name): the next pass reads it again' } : {}),
    };
  } catch (e) {
    return failedWith(d, dryRun, e);
  }
}

/** A ttl rule's Pod through the writer's one pod removal, as it was read (its phase, its request-evict-only mark). */
async function removePodAsRead(
  writer: ClusterWriter,
  d: ObjectDecision,
  pod: NonNullable<ObjectDecision['pod']>,
  ticket: RemovalTicket,
): Promise<ObjectResult> {
  const stored = {
    metadata: {
      namespace: d.namespace,
      name: d.name,
      uid: d.uid,
      resourceVersion: d.resourceVersion,
      ...(pod.annotations ? { annotations: pod.annotations } : {}),
    },
    status: { phase: pod.phase },
  } as Stored<Pod>;
  const r = await writer.removePod(removalTarget(stored), ticket, `kube-tidy ${d.reason}`);
  const outcome = r.outcome === 'evacuation-requested' || r.outcome === 'evacuating' ? 'blocked' : r.outcome;
  return { decision: d, outcome, dryRun: writer.dryRun, ...(r.message ? { message: r.message } : {}) };
}

// KEP-4563's API (lifecycle.k8s.io/v1alpha1, alpha in Kubernetes v1.37 behind the
// EvictionRequestAPI gate) as kube-tidy's evacuation uses it, pure: the objects it writes,
// and what it reads back, shaped for the state machine. The field names and rules are those of
// k8s.io/api@v0.37.2 lifecycle/v1alpha1/types.go; @kubernetes/client-node has no types for the
// group, so what is read is checked with zod here instead of trusted.
import { z } from 'zod';
import type { MigrationView } from './views.js';
import { EVICTION_REQUEST_POD_UID_LABEL as POD_UID_LABEL } from '../../model/keys.js';

export const LIFECYCLE = { group: 'lifecycle.k8s.io', version: 'v1alpha1' } as const;
export const API_VERSION = `${LIFECYCLE.group}/${LIFECYCLE.version}`;

// The requester prefix and the pod's uid label are keys kube-tidy owns (model/keys.ts).
export { EVICTION_REQUESTER_PREFIX as PREFIX, requesterName } from '../../model/keys.js';
export { POD_UID_LABEL };

/**
 * One EvictionRequest per pod and attempt, named before it exists (as the direct migration is):
 * two instances, or a successor after a crash, meet at 409 AlreadyExists instead of asking twice.
 */
export function evictionRequestName(podUid: string, attempt: number): string {
  return `kube-tidy-evacuation-${podUid}-${attempt}`;
}

export function evictionRequestBody(o: { namespace: string; name: string; pod: { name: string; uid: string }; requester: string }) {
  return {
    apiVersion: API_VERSION,
    kind: 'EvictionRequest',
    metadata: { name: o.name, namespace: o.namespace, labels: { [POD_UID_LABEL]: o.pod.uid } },
    // target.pod needs the uid (types.go: "required"): a pod re-created under the same name is another target.
    spec: { target: { pod: { name: o.pod.name, uid: o.pod.uid } }, requester: o.requester, intent: 'Eviction' as const },
  };
}

const Condition = z.object({ type: z.string(), status: z.string(), reason: z.string().optional(), message: z.string().optional() });
const Time = z.string().optional().nullable();

export const EvictionRequestSchema = z.object({
  metadata: z.object({
    name: z.string(),
    namespace: z.string().optional(),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
    generation: z.number().optional(),
  }),
  spec: z.object({ target: z.object({ pod: z.object({ name: z.string(), uid: z.string() }).optional() }), requester: z.string(), intent: z.string() }),
  status: z.object({ conditions: z.array(Condition).optional(), observedGeneration: z.number().optional() }).optional(),
});
export type EvictionRequest = z.infer<typeof EvictionRequestSchema>;

export const TargetResponderSchema = z.object({ name: z.string(), priority: z.number().optional(), state: z.string() });
export const ResponderStatusSchema = z.object({
  name: z.string(),
  startTime: Time,
  heartbeatTime: Time,
  expectedCompletionTime: Time,
  completionTime: Time,
  message: z.string().optional().nullable(),
});
export const EvictionSchema = z.object({
  metadata: z.object({
    name: z.string(),
    namespace: z.string().optional(),
    uid: z.string(),
    resourceVersion: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.object({ target: z.object({ pod: z.object({ name: z.string(), uid: z.string() }).optional() }) }),
  status: z
    .object({
      conditions: z.array(Condition).optional(),
      requesters: z.array(z.object({ name: z.string(), intent: z.string() })).optional(),
      targetResponders: z.array(TargetResponderSchema).optional(),
      responders: z.array(ResponderStatusSchema).optional(),
    })
    .optional(),
});
export type Eviction = z.infer<typeof EvictionSchema>;
export type ResponderStatus = z.infer<typeof ResponderStatusSchema>;

const trueCondition = (conditions: z.infer<typeof Condition>[] | undefined, type: string) => conditions?.find((c) => c.type === type && c.status === 'True');

/** The Eviction's progress in one line: who acts now, and what it last said. */
export function progressOf(e: Eviction | undefined): string | undefined {
  if (!e) return undefined;
  const active = e.status?.targetResponders?.find((r) => r.state === 'Active');
  if (!active) return undefined;
  const said = e.status?.responders?.find((r) => r.name === active.name)?.message;
  return `responder ${active.name} is Active${said ? `: ${said}` : ''}`;
}

/**
 * The EvictionRequest as the machine sees an attempt's migration, so the machine's rules
 * (success, failure with backoff, deadline, withdrawal) hold for both paths unchanged:
 * TargetEvicted=True -> Succeeded, Failed=True -> Failed, anything else -> in progress ('' while
 * no controller has looked at it). Conditions only count once the controller has observed the
 * current spec (status.observedGeneration >= metadata.generation): a request withdrawn and
 * asked again keeps the old Failed condition until then (types.go: "These conditions can be
 * reset if ... a new Eviction intent has been submitted").
 */
export function evictionRequestView(er: EvictionRequest, eviction?: Eviction): MigrationView {
  const observed = er.status?.observedGeneration !== undefined && er.status.observedGeneration >= (er.metadata.generation ?? 1);
  const conditions = observed ? er.status?.conditions : undefined;
  const evicted = trueCondition(conditions, 'TargetEvicted');
  const failed = trueCondition(conditions, 'Failed');
  const what = `EvictionRequest ${er.metadata.name}`;
  if (evicted)
    return { name: er.metadata.name, phase: 'Succeeded', recorded: true, what, answered: true, detail: `TargetEvicted (${evicted.reason ?? 'no reason'})` };
  if (failed)
    return {
      name: er.metadata.name,
      phase: 'Failed',
      recorded: true,
      what,
      answered: true,
      detail: `Failed (${failed.reason ?? 'no reason'}${failed.message ? `: ${failed.message}` : ''})`,
    };
  const progress = progressOf(eviction);
  return {
    name: er.metadata.name,
    phase: observed ? 'Running' : '',
    recorded: true,
    what,
    answered: answeredBy(eviction),
    ...(progress ? { detail: progress } : observed ? {} : { detail: 'not yet observed by an evictionrequest controller' }),
  };
}

/**
 * Whether a controller acts on the request: its Eviction has had a responder Active (one is
 * Active now, or has since moved on: Completed, Interrupted, Canceled) or has ended. An
 * Eviction whose responders are all still Inactive is no answer, nor is no Eviction at all.
 */
export function answeredBy(eviction: Eviction | undefined): boolean {
  const st = eviction?.status;
  if (!st) return false;
  return Boolean(
    st.targetResponders?.some((r) => r.state !== 'Inactive') || trueCondition(st.conditions, 'TargetEvicted') || trueCondition(st.conditions, 'Failed'),
  );
}

/**
 * Whether one of kube-tidy's EvictionRequests has nothing left to ask for, so it is deleted:
 * its pod (that uid) is gone, and no Eviction of the pod is still at work (there is none, or it
 * ended TargetEvicted/Failed). Nothing owns an EvictionRequest and the API keeps it after its
 * pod (types.go: only Evictions are garbage collected, once their requests are gone), so
 * without this every pod evicted by its responders would leave one behind for good. While a
 * responder is still at work (writing its completion), deleting would withdraw and cancel it.
 */
export function requestLeftBehind(podThere: boolean, eviction: Eviction | undefined): boolean {
  if (podThere) return false;
  if (!eviction) return true;
  const conditions = eviction.status?.conditions;
  return Boolean(trueCondition(conditions, 'TargetEvicted') ?? trueCondition(conditions, 'Failed'));
}

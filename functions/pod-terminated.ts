import type { HttpFunction } from '@google-cloud/functions-framework';
import { decodeEvent } from '../shared/events/index.js';
import type { Pod } from '../shared/model/kube.js';
import { decide } from '../shared/plan/decide.js';
import { snapshotNeeds } from '../shared/plan/needs.js';
import { BadRequestError, respond } from '../shared/runtime/respond.js';
import type { Runtime } from '../shared/runtime/runtime.js';

/**
 * `podTerminated`: one pod event in, the lifecycle strategies decide for that pod, the
 * decision is carried out. Repeats and stale events change nothing: the write carries the
 * pod's uid as a precondition and "already gone" counts as done.
 */
export function podTerminated(rt: Runtime): HttpFunction {
  return (req, res) =>
    respond(req, res, rt.log, async () => {
      const event = decodeEvent({ headers: req.headers, body: req.body });
      if (event.type === 'tick') throw new BadRequestError(422, 'podTerminated takes pod events; schedule ticks go to sweep');
      const kind = event.type === 'object' ? event.object.kind : event.ref.kind;
      if (kind !== 'Pod') throw new BadRequestError(422, `podTerminated takes Pod events, not ${kind}`);
      if (event.verb === 'delete') return { body: { outcome: 'nothing-to-do', why: 'the pod is already deleted' } };

      let pod: Pod | undefined;
      if (event.type === 'object') pod = event.object as unknown as Pod;
      else {
        // Reference mode carries no object: read it (one request), or it is gone already.
        if (!event.ref.namespace) throw new BadRequestError(400, 'a Pod reference needs a namespace');
        await rt.kubeReady();
        const { getPod } = await import('../shared/kube/get.js');
        pod = (await getPod(rt.clients.core, { namespace: event.ref.namespace, name: event.ref.name })) as Pod | undefined;
        if (!pod) return { body: { outcome: 'nothing-to-do', why: 'the pod no longer exists' } };
      }

      // Already being deleted (by a sweep, a person, the garbage collector): nothing to add.
      if (pod.metadata.deletionTimestamp) return { body: { outcome: 'nothing-to-do', pod: `${pod.metadata.namespace}/${pod.metadata.name}`, why: 'the pod is already terminating' } };
      const { policy } = rt.policy.current();
      // The cluster (and the client, loaded on first need) only when the policy reads more than
      // the pod or a decision must be carried out: most events need neither.
      const needs = snapshotNeeds(policy);
      let context = {};
      if (Object.values(needs).some(Boolean)) {
        await rt.kubeReady();
        context = (await (await import('../shared/runtime/context.js')).fetchContext(rt, needs)).snapshot;
      }
      const plan = decide(policy, { ...context, pods: [pod] }, rt.now(), { protectedNamespaces: rt.config.PROTECTED_NAMESPACES, eligibleAt: true });
      const decision = plan.decisions.find((d) => d.uid === pod.metadata.uid);
      const kept = plan.kept.filter((k) => k.uid === pod.metadata.uid);
      const name = `${pod.metadata.namespace}/${pod.metadata.name}`;
      if (!decision) {
        const why = kept.length ? kept.map((k) => `${k.strategy}: ${k.reason}`).join('; ') : 'no strategy selects it';
        // When only time stands in the way, say when: no later event comes for it; a sweep acts then.
        const at = plan.eligible?.find((e) => e.uid === pod.metadata.uid)?.at;
        return { body: { outcome: kept.length ? 'kept' : 'nothing-to-do', pod: name, why, kept, ...(at === undefined ? {} : { eligibleAt: new Date(at).toISOString() }) } };
      }
      await rt.kubeReady();
      const { act } = await import('../shared/runtime/act.js');
      const result = await act(rt, decision, { dryRun: rt.config.DRY_RUN, throwTransient: true });
      const why = result.message ? `${decision.reason} (${result.message})` : decision.reason;
      return { body: { outcome: result.outcome, pod: name, why, result, policyWarning: rt.policy.lastError() } };
    });
}

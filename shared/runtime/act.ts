import { applyDecision, recordPodEvent, TransientKubeError, type ApplyResult } from '../kube/index.js';
import type { Decision } from '../plan/decision.js';
import type { Runtime } from './runtime.js';

// Carrying out the core's decisions: the write (with the uid precondition), then a Kubernetes
// Event on the pod saying which strategy acted and why.

export interface ActResult {
  namespace: string;
  name: string;
  uid: string;
  strategy: string;
  action: Decision['action'];
  /** deleted/evicted: done; blocked: a PodDisruptionBudget said no (try next time); gone: it
   *  was already gone; stale: another pod now has the name; failed: see message. */
  outcome: ApplyResult['outcome'] | 'failed';
  dryRun: boolean;
  reason: string;
  message?: string;
}

export interface ActOptions {
  dryRun: boolean;
  /** Event path: a transient error is thrown so the bridge retries. Sweep: recorded, go on. */
  throwTransient: boolean;
}

export async function act(rt: Runtime, decision: Decision, opts: ActOptions): Promise<ActResult> {
  const base = { namespace: decision.namespace, name: decision.name, uid: decision.uid, strategy: decision.strategy, action: decision.action, reason: decision.reason, dryRun: opts.dryRun };
  let result: ApplyResult;
  try {
    result = await applyDecision(rt.clients.core, decision, { dryRun: opts.dryRun, gracePeriodSeconds: rt.policy.current().policy.gracePeriodSeconds });
  } catch (e) {
    if (opts.throwTransient && e instanceof TransientKubeError) throw e;
    return { ...base, outcome: 'failed', message: (e as Error).message };
  }
  const done = result.outcome === 'deleted' || result.outcome === 'evicted';
  if (done && rt.config.RECORD_EVENTS && !opts.dryRun) {
    const recorded = await recordPodEvent(rt.clients.events, decision, {
      reason: result.outcome === 'deleted' ? 'Deleted' : 'Evicted',
      action: result.outcome === 'deleted' ? 'Delete' : 'Evict',
      type: 'Normal',
      note: `kube-tidy ${decision.profile}/${decision.reason}`,
    });
    if (!recorded.recorded) rt.log.warn({ pod: `${decision.namespace}/${decision.name}`, err: recorded.error?.message }, 'event not recorded');
  }
  return { ...base, outcome: result.outcome, ...(result.message ? { message: result.message } : {}) };
}

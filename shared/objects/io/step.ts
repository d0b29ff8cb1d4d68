// An objects pass as one step of a target that also runs pod cleanup (the sweep, invoke): run
// only when the policy has object rules, and a pass that could not read the cluster is counted
// as the target's failure (transient: 503, the sender retries; refused: 500), never thrown
// over the pods' answer, which is already done and stands.
import { classifyKubeError } from '../../kube/errors.js';
import type { ObjectsHandle } from '../handle.js';
import { objectsAnswer, type ObjectsAnswer } from './answer.js';
import { runObjectsPass, type ObjectsPassOptions, type ObjectsPassSummary } from './pass.js';

export interface ObjectsStep {
  /** Absent when the policy has no object rules. */
  answer?: ObjectsAnswer;
  summary?: ObjectsPassSummary;
  failures: { transient: number; refused: number };
}

export async function objectsStep(h: ObjectsHandle, o: ObjectsPassOptions): Promise<ObjectsStep> {
  const rules = o.rules ?? h.policy().objects ?? [];
  if (rules.length === 0) return { failures: { transient: 0, refused: 0 } };
  try {
    const summary = await runObjectsPass(h, { ...o, rules });
    return { answer: objectsAnswer(summary), summary, failures: summary.failures };
  } catch (e) {
    const failure = classifyKubeError(e);
    h.log.warn({ err: (e as Error)?.message ?? String(e), origin: o.origin }, 'objects pass: could not read what the rules name');
    return failure.kind === 'transient' ? { failures: { transient: 1, refused: 0 } } : { failures: { transient: 0, refused: 1 } };
  }
}

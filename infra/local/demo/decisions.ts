// kube-tidy's decisions as CloudEvents (docs/observing.md "Decisions as CloudEvents"), received as any sink
// receives them: the functions are given this receiver's URL as EVENTS_SINK. The demo hears the
// answers to its requests from the functions' logs; a removal at a pod's eligibility answers no
// request (podTerminated's own timer acted), so its decision event is the only word of it, and
// the event's `due` says it was acted on at its time, not on an event or by a sweep.
import type { CloudEventV1 } from 'cloudevents';
import { receiver } from '../../../test/fixtures/events/receiver.js';
import type { PodDecision } from '../../../shared/notify/types.js';
import type { AnswerSeen } from './story.js';

const POD_DECISION = /^dev\.kube-tidy\.pod\.[a-z-]+\.v1$/;

/**
 * A pod decision made at its eligibility, as an answer the story can rank; undefined for any
 * other event (the event path's and the sweep's decisions are already heard as their answers).
 */
export function dueAnswerOf(e: CloudEventV1<unknown>, at: number): AnswerSeen | undefined {
  if (!POD_DECISION.test(e.type)) return undefined;
  const d = e.data as PodDecision | undefined;
  if (!d?.due) return undefined;
  return {
    kind: 'answer',
    at,
    // `source` is <EVENTS_SOURCE>/<function>: the function whose timer or tick acted.
    by: e.source.split('/').at(-1) ?? 'podTerminated',
    namespace: d.namespace,
    name: d.name,
    uid: d.uid,
    outcome: d.outcome,
    why: d.message ? `${d.reason} (${d.message})` : d.reason,
    strategy: d.strategy,
    dryRun: d.dryRun,
    due: d.due,
  };
}

export interface DecisionSink {
  /** For the functions' environment: where their decisions go. */
  env: Record<string, string>;
  close(): void;
}

export async function decisionSink(onAnswer: (a: AnswerSeen) => void): Promise<DecisionSink> {
  const sink = await receiver((e) => {
    const a = dueAnswerOf(e, Date.now());
    if (a) onAnswer(a);
  });
  return { env: { EVENTS_SINK: sink.url }, close: () => sink.close() };
}

// Pure: one pass's decision as effects. The machine (machine.ts) says what comes next; this
// says how it is carried out, in order, with each write's precondition and what a refusal
// means (core/effects.ts). io/effects.ts applies the list; io/evacuate.ts reads, decides and
// applies until an answer comes out.
import { chargedWhenRequested, readState, writeState, type RunState } from './annotations.js';
import { EVACUATION_ANNOTATIONS as ANNOTATIONS } from '../../model/keys.js';
import type { Effect, Info, KubevirtMark, PassOutcome } from './effects.js';
import { EVICTION_REQUEST_POD_UID_LABEL as POD_UID_LABEL } from '../../model/keys.js';
import { isDirect, next, type Observation, type PodView, type Settings, type Step } from './machine.js';

type Started = Extract<RunState, { state: 'Started' }>;

/** Start (or repeat the start of) an attempt, on the path it started on: both ways are idempotent. */
function drive(pod: PodView, run: Started, s: Settings): Effect {
  if (run.evictionRequest) return { do: 'request-eviction', name: run.evictionRequest, uid: pod.uid };
  if (run.migration && pod.vmi && isDirect(pod, s)) return { do: 'create-migration', name: run.migration, vmi: pod.vmi, labels: { [POD_UID_LABEL]: pod.uid } };
  return { do: 'evict' };
}

const attemptOf = (run: Started): Info => ({ attempt: run.attempt, ...(run.migration ? { migration: run.migration } : {}) });

/**
 * Why an attempt that did not succeed may not be over for KubeVirt: after the Eviction API
 * started it, KubeVirt's own mark on the VMI keeps its evacuation going. Said, not hidden.
 * Undefined: no need to look (a success, no launcher pod, our own migration, or the responders evicted).
 */
function markToLookAt(pod: PodView | undefined, outcome: string, s: Settings): string | undefined {
  if (outcome === 'Succeeded' || !pod?.vmi || isDirect(pod, s)) return undefined;
  if (readState(pod.annotations).state === 'Started' && pod.annotations[ANNOTATIONS.evictionRequest]) return undefined;
  return pod.vmi;
}

function stillEvacuating(vmi: string, mark: KubevirtMark): string | undefined {
  if ('unknown' in mark) return `whether KubeVirt still evacuates VMI ${vmi} is unknown: ${mark.unknown}`;
  return (
    mark.node &&
    `KubeVirt still marks VMI ${vmi} for evacuation from ${mark.node} and keeps creating migrations until that is cancelled (virtctl evacuate-cancel vmi ${vmi}, KubeVirt 1.7+)`
  );
}

/** The end: the request or migration let go, then the record on the pod, the slot, the Event, the answer. */
function end(o: Observation, step: Extract<Step, { do: 'end' }>, s: Settings, holder: string, info: Info): Effect[] {
  const pod = o.pod;
  const request = pod?.annotations[ANNOTATIONS.evictionRequest];
  // Done: the record is not needed (deleting also withdraws). Otherwise withdrawn, not deleted,
  // so the Eviction's requesters still show who asked and gave up.
  const letGo: Effect[] = request
    ? [{ do: step.outcome === 'Succeeded' ? 'delete-request' : 'withdraw-request', name: request }]
    : step.abort && o.migration
      ? [{ do: 'delete-migration', name: o.migration.name }]
      : [];
  const run = pod && readState(pod.annotations);
  // An evacuation that fell back says so in its result too.
  const fallback = run && run.state !== 'Idle' ? run.fallback : undefined;
  const write = pod !== undefined && step.write;
  const rest = (still?: string): Effect[] => {
    const why = [step.why, fallback, still].filter(Boolean).join('; ');
    const type = (step.outcome === 'Succeeded' || step.outcome === 'Cancelled') && !still ? 'Normal' : 'Warning';
    const result = `${step.outcome} at ${new Date(o.now).toISOString()}: ${why}`;
    return [
      ...(write
        ? [
            {
              do: 'annotate',
              set: { ...writeState({ state: 'Idle' }, holder), [ANNOTATIONS.request]: null, [ANNOTATIONS.result]: result },
              gone: 'go-on',
            } as const,
          ]
        : []),
      { do: 'release-slot', ...(pod ? { uid: pod.uid } : {}), byPod: true, ends: true },
      ...(write ? [{ do: 'event', reason: `Evacuation${step.outcome}`, type, note: why } as const] : []),
      { do: 'answer', outcome: step.outcome.toLowerCase() as PassOutcome, why, ...info },
    ];
  };
  const vmi = markToLookAt(pod, step.outcome, s);
  return [...letGo, ...(vmi ? [{ do: 'look', at: 'kubevirt-mark', vmi, then: (mark: KubevirtMark) => rest(stillEvacuating(vmi, mark)) } as const] : rest())];
}

/** What one pass does now: the machine's next step as the effects that carry it out. `holder`: who marks the pod in progress. */
export function decide(o: Observation, s: Settings, holder: string): Effect[] {
  const step = next(o, s);
  const pod = o.pod;
  const run = pod ? readState(pod.annotations) : undefined;
  const info: Info = { ...(run && run.state !== 'Idle' ? { attempt: run.attempt } : {}), ...(o.migration ? { migration: o.migration.name } : {}) };
  switch (step.do) {
    case 'none':
      return [{ do: 'answer', outcome: 'nothing-to-do', why: step.why }];
    case 'wait':
      return [{ do: 'answer', outcome: 'waiting', why: step.why, ...info }];
    case 'start': {
      // The slot first: a pod that holds one and has no Started state yet is an instance between the two writes.
      const request: Record<string, string> = pod!.annotations[ANNOTATIONS.request] ? {} : { [ANNOTATIONS.request]: step.requestedBy };
      // Charged (s.chargeBudgets) once, as pod cleanup charges a removal once: at its first
      // start (later attempts retry the same evacuation), and never when the pod cleanup or
      // defrag request that started it was charged already. Before the slot: a deferred start
      // writes nothing, not even the slot store.
      const charged = s.chargeBudgets === true && step.next.attempt === 1 && !chargedWhenRequested(pod!.annotations[ANNOTATIONS.request]);
      const admit: Effect[] = charged ? [{ do: 'admit' }] : [];
      return [
        ...admit,
        { do: 'take-slot', uid: pod!.uid, node: pod!.node ?? '', at: o.now, attempt: step.next.attempt },
        { do: 'annotate', set: { ...writeState(step.next, holder), ...request }, gone: 'decide-again' },
        drive(pod!, step.next, s),
        { do: 'answer', driven: true, why: '', ...attemptOf(step.next) },
      ];
    }
    case 'drive':
      return [drive(pod!, run as Started, s), { do: 'answer', driven: true, why: '', ...info }];
    case 'fallback':
      // Withdrawn before the state moves on: a crash between the two leaves the attempt as it
      // was, and the next pass falls back again (withdrawing twice is harmless). The state
      // write is tied to the pod as read, so of two instances only one falls back and drives.
      return [
        { do: 'withdraw-request', name: step.withdraw },
        { do: 'annotate', set: writeState(step.next, holder), gone: 'decide-again' },
        drive(pod!, step.next, s),
        { do: 'answer', driven: true, why: step.why, ...attemptOf(step.next) },
      ];
    case 'record':
      return [{ do: 'annotate', set: { [ANNOTATIONS.migration]: step.migration }, gone: 'go-on' }, { do: 'decide-again' }];
    case 'backoff':
      return [
        { do: 'annotate', set: writeState(step.next, holder), gone: 'decide-again' },
        // The failed attempt's EvictionRequest goes (deleting withdraws); the next attempt asks anew.
        ...(run?.state === 'Started' && run.evictionRequest ? [{ do: 'delete-request', name: run.evictionRequest } as const] : []),
        { do: 'release-slot', uid: pod!.uid, byPod: false },
        { do: 'answer', outcome: 'backoff', why: step.why, ...info },
      ];
    case 'end':
      return end(o, step, s, holder, info);
  }
}

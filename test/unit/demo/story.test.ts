import { HTTP, type CloudEventV1 } from 'cloudevents';
import { describe, expect, it } from 'vitest';
import { dueAnswerOf } from '../../../infra/local/demo/decisions.js';
import { eligibleToGone, fateOf, summaryLine, tell, type Observation } from '../../../infra/local/demo/story.js';
import { podDecisionEvent } from '../../../shared/notify/build.js';
import { podDecision } from '../../../shared/notify/pods.js';
import { httpRequestOf } from '../../../shared/notify/sink.js';
import type { DueAct, Origin } from '../../../shared/notify/types.js';

// The demo's final table is told from every observation, whatever order they arrived in: the
// bug this guards against printed "nothing-to-do / no strategy selects it" for a pod that
// podTerminated deleted a second later, because the delete answer was logged after the watch
// saw the pod gone and was dropped.

const NS = 'demo-batch';
const watch = (at: number, name: string, uid: string, extra: Partial<Extract<Observation, { kind: 'watch' }>> = {}): Observation => ({
  kind: 'watch',
  at,
  namespace: NS,
  name,
  uid,
  ...extra,
});
const answer = (at: number, name: string, outcome: string, why: string, extra: Partial<Extract<Observation, { kind: 'answer' }>> = {}): Observation => ({
  kind: 'answer',
  at,
  by: 'podTerminated',
  namespace: NS,
  name,
  outcome,
  why,
  ...extra,
});

const REASON = 'PodLifeTime: phase Failed; container main exited 3 (in 3)';
// The order things are logged under load: an early answer while the pod was Pending, the
// watch sees it fail and go, and only then the delete answer arrives.
const underLoad: Observation[] = [
  watch(1000, 'bad-input-x', 'u1', { phase: 'Pending' }),
  answer(1010, 'bad-input-x', 'nothing-to-do', 'no strategy selects it'),
  watch(1500, 'bad-input-x', 'u1', { phase: 'Failed', exitCode: 3 }),
  watch(1800, 'bad-input-x', 'u1', { phase: 'Failed', deleted: true }),
  answer(2100, 'bad-input-x', 'deleted', REASON, { uid: 'u1', strategy: 'PodLifeTime', dryRun: false }),
];

describe('the demo story', () => {
  it.each([
    { order: 'as logged under load (delete answer after the watch saw the pod gone)', obs: underLoad },
    { order: 'in reverse', obs: [...underLoad].reverse() },
    { order: 'shuffled', obs: [underLoad[4]!, underLoad[1]!, underLoad[3]!, underLoad[0]!, underLoad[2]!] },
  ])('a pod podTerminated deleted is told as deleted by it, with the strategy and the time, $order', ({ obs }) => {
    const [story] = tell(obs);
    expect(story).toMatchObject({
      name: 'bad-input-x',
      uid: 'u1',
      result: 'deleted',
      by: 'podTerminated',
      strategy: 'PodLifeTime',
      why: REASON,
      phase: 'Failed',
      exitCode: 3,
      terminalAt: 1500,
      goneAt: 1800,
    });
    expect(story!.result).not.toBe('nothing-to-do');
  });

  it('answers without a uid are matched by name to the pod the watch saw; a later pod of the same name is another story', () => {
    const stories = tell([
      watch(1, 'web-a', 'old', { phase: 'Running' }),
      watch(2, 'web-a', 'old', { deleted: true }),
      watch(3, 'web-a', 'new', { phase: 'Running' }),
      answer(4, 'web-a', 'kept', 'RemovePodsHavingTooManyRestarts: restarts 2 < 10'),
    ]);
    expect(stories.map((s) => [s.uid, s.result])).toEqual([
      ['old', 'gone'],
      ['new', 'kept'],
    ]);
  });

  it.each([
    {
      name: 'a pod the sweep deleted is deleted by sweep, the strategy read from the reason when not given',
      obs: [
        watch(1, 'trainer-a', 't', { phase: 'Succeeded' }),
        answer(2, 'trainer-a', 'kept', 'PodLifeTime: age 5s <= 20s'),
        answer(30, 'trainer-a', 'deleted', 'PodLifeTime: phase Succeeded; age 25s > 20s', { by: 'sweep', uid: 't', dryRun: false }),
        watch(31, 'trainer-a', 't', { deleted: true }),
      ],
      expected: { result: 'deleted', by: 'sweep', strategy: 'PodLifeTime' },
    },
    {
      name: 'a blocked eviction stays blocked when a later answer says nothing new',
      obs: [
        watch(1, 'web-b', 'w', { phase: 'Running' }),
        answer(2, 'web-b', 'blocked', "RemovePodsHavingTooManyRestarts: 12 restarts (Cannot evict pod as it would violate the pod's disruption budget.)"),
        answer(3, 'web-b', 'nothing-to-do', 'the pod is already terminating'),
      ],
      expected: { result: 'blocked', strategy: 'RemovePodsHavingTooManyRestarts' },
    },
    {
      name: 'a dry-run "deleted" is not a deletion',
      obs: [
        watch(1, 'flaky-a', 'f', { phase: 'Failed' }),
        answer(2, 'flaky-a', 'deleted', 'PodLifeTime: x', { uid: 'f', dryRun: true }),
        answer(3, 'flaky-a', 'kept', 'exit 1 is not selected'),
      ],
      expected: { result: 'kept', why: 'exit 1 is not selected' },
    },
    {
      name: 'a pod removed by someone else is never claimed by kube-tidy',
      obs: [
        watch(1, 'other', 'o', { phase: 'Failed' }),
        answer(2, 'other', 'nothing-to-do', 'no strategy selects it'),
        watch(3, 'other', 'o', { deleted: true }),
      ],
      expected: { result: 'gone', why: 'removed, but not by kube-tidy (no kube-tidy write answered for it)' },
    },
    { name: 'a pod no function spoke about is untouched', obs: [watch(1, 'quiet', 'q', { phase: 'Running' })], expected: { result: 'untouched' } },
  ])('$name', ({ obs, expected }) => {
    expect(tell(obs)[0]).toMatchObject(expected);
  });
});

// Issue 33: the two trainer pods (Succeeded, 20 s to live) were deleted by podTerminated's timer
// 0.6 s after they became eligible, and the demo said "no strategy selects it", then "gone,
// removed, but not by kube-tidy", and "swept": the timer's act answers no request, so the demo
// never heard of it. It hears it now from the decision CloudEvent, built and sent here as the
// product builds and sends it, and received as the demo's sink receives it.

const ELIGIBLE = '2026-11-28T12:00:20.000Z';
const T = Date.parse(ELIGIBLE);

/** The decision CloudEvent the product sends for a removal, as a receiver parses it off the wire. */
async function decisionOnTheWire(name: string, uid: string, origin: Origin, due?: DueAct): Promise<CloudEventV1<unknown>> {
  const d = {
    namespace: NS,
    name,
    uid,
    profile: 'finished',
    strategy: 'PodLifeTime',
    action: 'delete' as const,
    reason: 'PodLifeTime: phase Succeeded; age 20s > 20s',
  };
  const out = podDecisionEvent(
    { id: `id-${name}`, time: T + 600, source: 'kube-tidy' },
    podDecision(d, { action: 'delete', outcome: 'deleted', dryRun: false }, origin, undefined, due),
  );
  return HTTP.toEvent(await httpRequestOf(out)) as CloudEventV1<unknown>;
}

/** A trainer pod: it succeeds, podTerminated schedules it for its eligibility, it goes 0.6 s after. */
function trainer(name: string, uid: string): Observation[] {
  return [
    watch(T - 20_000, name, uid, { phase: 'Running' }),
    answer(T - 19_990, name, 'nothing-to-do', 'no strategy selects it'),
    watch(T - 19_500, name, uid, { phase: 'Succeeded', exitCode: 0 }),
    answer(T - 19_450, name, 'nothing-to-do', `no strategy selects it yet: time alone brings it in, finished/PodLifeTime at ${ELIGIBLE}`, {
      scheduled: ELIGIBLE,
    }),
    watch(T + 600, name, uid, { phase: 'Succeeded', deleted: true }),
  ];
}

describe('a pod removed at its eligibility (issue 33)', () => {
  it('is told as deleted by podTerminated’s timer at eligibility, on time, not "gone, but not by kube-tidy" nor swept', async () => {
    const heard = dueAnswerOf(await decisionOnTheWire('trainer-a', 'ta', 'event', { at: ELIGIBLE, by: 'timer' }), T + 650);
    expect(heard).toBeDefined();
    const [story] = tell([...trainer('trainer-a', 'ta'), heard!]);
    expect(story).toMatchObject({
      result: 'deleted',
      by: 'podTerminated',
      strategy: 'PodLifeTime',
      due: { at: ELIGIBLE, by: 'timer' },
      scheduled: ELIGIBLE,
      why: 'at eligibility (12:00:20), by its timer: PodLifeTime: phase Succeeded; age 20s > 20s',
    });
    expect(fateOf(story!)).toBe('on-time');
    expect(eligibleToGone(story!)).toBe(600);
    expect(story!.result).not.toBe('gone');
  });

  it('before its time it is told as scheduled for its eligibility, not "no strategy selects it"', () => {
    const [story] = tell(trainer('trainer-a', 'ta').slice(0, 4));
    expect(story).toMatchObject({ result: 'scheduled', scheduled: ELIGIBLE });
    expect(story!.why).toMatch(/^for 12:00:20: /);
  });

  it('the summary counts what happened: on time by the timer, or swept when the sweep got there first', async () => {
    const timer = dueAnswerOf(await decisionOnTheWire('trainer-a', 'ta', 'event', { at: ELIGIBLE, by: 'timer' }), T + 650)!;
    const swept = answer(T + 300, 'trainer-b', 'deleted', 'PodLifeTime: phase Succeeded; age 20s > 20s', { by: 'sweep', uid: 'tb', dryRun: false });
    const stories = tell([...trainer('trainer-a', 'ta'), timer, ...trainer('trainer-b', 'tb'), swept]);
    const e = { prefix: 'trainer', namespace: NS, expect: 'on-time', story: 'on time' };
    expect(summaryLine(e, stories)).toBe(`on-time  ${NS}/trainer*: 1 of 2 (1 swept): on time`);
    expect(summaryLine(e, stories.slice(0, 1))).toBe(`on-time  ${NS}/trainer*: 1 of 1: on time`);
  });

  it('hears only decisions made at eligibility: the event path’s and the sweep’s are heard as their answers', async () => {
    expect(dueAnswerOf(await decisionOnTheWire('x', 'x', 'event'), 1)).toBeUndefined();
    expect(dueAnswerOf(await decisionOnTheWire('y', 'y', 'sweep'), 1)).toBeUndefined();
    const tick = dueAnswerOf(await decisionOnTheWire('z', 'z', 'event', { at: ELIGIBLE, by: 'tick' }), 1);
    expect(tick).toMatchObject({ by: 'podTerminated', uid: 'z', outcome: 'deleted', due: { by: 'tick' } });
  });
});

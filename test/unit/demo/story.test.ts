import { describe, expect, it } from 'vitest';
import { tell, type Observation } from '../../../infra/local/demo/story.js';

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

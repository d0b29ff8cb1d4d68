import { describe, expect, it } from 'vitest';
import type { RemoteObject } from './remote-object.js';
import { BATCH_JOB, WORKLOAD } from './kinds.js';
import { JOB_NAME_LABEL, JOB_UID_LABEL, KUEUE_PODSET_LABEL, ORIGIN_LABEL } from './labels.js';
import { keyOf, kindKey, orphans, type ManagerSnapshot, type WorkerSnapshot } from './orphans.js';

const job = (name: string, uid: string, origin?: string): RemoteObject => ({
  metadata: { name, namespace: 'ml', uid, labels: origin ? { [ORIGIN_LABEL]: origin } : {} },
});
const pod = (name: string, jobUid: string, o: { owned?: boolean; phase?: string; kueue?: boolean; deleting?: boolean } = {}): RemoteObject => ({
  metadata: {
    name,
    namespace: 'ml',
    uid: `pod-${name}`,
    labels: { [JOB_UID_LABEL]: jobUid, [JOB_NAME_LABEL]: 'train', ...(o.kueue ? { [KUEUE_PODSET_LABEL]: 'main' } : {}) },
    ownerReferences: o.owned ? [{ uid: jobUid, kind: 'Job', name: 'train', controller: true }] : [],
    ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  status: { phase: o.phase ?? 'Running' },
});

const listedAll: ManagerSnapshot = { live: new Set(), listed: new Set([kindKey(BATCH_JOB), kindKey(WORKLOAD)]) };
const worker = (w: Partial<WorkerSnapshot>): WorkerSnapshot => ({ copies: [], liveJobUids: new Set(), jobPods: [], witnessed: new Map(), ...w });

const cases: { sentence: string; worker: WorkerSnapshot; manager?: ManagerSnapshot; limit?: number; want: [string, string][] }[] = [
  {
    sentence: 'a copy with our origin whose manager Job is gone is deleted',
    worker: worker({ copies: [{ kind: BATCH_JOB, items: [job('train', 'u1', 'multikueue')] }] }),
    want: [['delete', 'train']],
  },
  {
    sentence: 'a copy whose manager Job still exists is kept',
    worker: worker({ copies: [{ kind: BATCH_JOB, items: [job('train', 'u1', 'multikueue')] }] }),
    manager: { ...listedAll, live: new Set([keyOf(BATCH_JOB, 'ml', 'train')]) },
    want: [],
  },
  {
    sentence: 'a copy with another origin is never touched',
    worker: worker({ copies: [{ kind: BATCH_JOB, items: [job('train', 'u1', 'other-manager')] }] }),
    want: [],
  },
  {
    sentence: 'a copy whose kind the manager does not serve is only reported',
    worker: worker({ copies: [{ kind: BATCH_JOB, items: [job('train', 'u1', 'multikueue')] }] }),
    manager: { live: new Set(), listed: new Set() },
    want: [['report', 'train']],
  },
  {
    sentence: 'an orphaned Running pod of a witnessed Job that is gone is evicted',
    worker: worker({ jobPods: [pod('p', 'u1')], witnessed: new Map([['u1', 'ml/train']]) }),
    want: [['evict', 'p']],
  },
  {
    sentence: 'an orphaned Succeeded pod of a witnessed Job that is gone is deleted',
    worker: worker({ jobPods: [pod('p', 'u1', { phase: 'Succeeded' })], witnessed: new Map([['u1', 'ml/train']]) }),
    want: [['delete', 'p']],
  },
  {
    sentence: 'a pod still owned by its Job is left to the garbage collector',
    worker: worker({ jobPods: [pod('p', 'u1', { owned: true })], witnessed: new Map([['u1', 'ml/train']]) }),
    want: [],
  },
  {
    sentence: 'an orphaned pod whose Job still exists is kept',
    worker: worker({ jobPods: [pod('p', 'u1')], liveJobUids: new Set(['u1']), witnessed: new Map([['u1', 'ml/train']]) }),
    want: [],
  },
  {
    sentence: 'a pod already terminating is left alone',
    worker: worker({ jobPods: [pod('p', 'u1', { deleting: true })], witnessed: new Map([['u1', 'ml/train']]) }),
    want: [],
  },
  { sentence: 'an orphaned pod of a Job never witnessed is not touched', worker: worker({ jobPods: [pod('p', 'u9')] }), want: [] },
  {
    sentence: 'an orphaned Kueue pod of a Job never witnessed is only reported',
    worker: worker({ jobPods: [pod('p', 'u9', { kueue: true })] }),
    want: [['report', 'p']],
  },
  {
    sentence: 'beyond the limit decisions are deferred, not carried out',
    worker: worker({ jobPods: [pod('a', 'u1'), pod('b', 'u1')], witnessed: new Map([['u1', 'ml/train']]) }),
    limit: 1,
    want: [
      ['evict', 'a'],
      ['deferred', 'b'],
    ],
  },
];

describe('orphans in one worker', () => {
  for (const c of cases) {
    it(c.sentence, () => {
      const plan = orphans(c.worker, c.manager ?? listedAll, { origin: 'multikueue', limit: c.limit ?? 10 });
      expect(plan.decisions.map((d) => [d.action, d.name])).toEqual(c.want);
    });
  }

  it('records our batch copies it has not seen before and forgets uids nothing refers to', () => {
    const plan = orphans(
      worker({
        copies: [{ kind: BATCH_JOB, items: [job('a', 'new', 'multikueue'), job('b', 'known', 'multikueue'), job('c', 'foreign', 'x')] }],
        liveJobUids: new Set(['new', 'known', 'foreign']),
        jobPods: [pod('p', 'old-with-pods')],
        witnessed: new Map([
          ['known', 'ml/b'],
          ['old-with-pods', 'ml/t'],
          ['old', 'ml/o'],
        ]),
      }),
      { ...listedAll, live: new Set([keyOf(BATCH_JOB, 'ml', 'a'), keyOf(BATCH_JOB, 'ml', 'b')]) },
      { origin: 'multikueue', limit: 10 },
    );
    expect([...plan.witness.add.keys()]).toEqual(['new']);
    expect(plan.witness.drop).toEqual(['old']);
  });
});

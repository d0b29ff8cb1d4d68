// The objects' pass writes as the pods' pass does (issue 45): its deletes in the plan's order
// with several in flight (the in-order pool, SWEEP_CONCURRENCY), each admitted first. Two
// finished Jobs: the first's DELETE is held (the test handle's `beforeDelete` seam) until the
// second's is about to be sent, which only a pool with both in flight reaches (one at a time,
// the pass would wait on the first for ever: the test fails by its own timeout, never by a
// timed assertion). The results stay in the plan's order, oldest first.
import { describe, expect, it } from 'vitest';
import { runObjectsPass } from '../../../shared/objects/index.js';
import { finishedJob, liveJob } from './fixtures.js';
import { objectsSuite } from './handle.js';

const { ns, batch, handle } = objectsSuite('objects-in-order');

describe("the objects' pass: deletes in the plan's order, several in flight", () => {
  it("the second Job's DELETE is sent while the first's is held; both deleted, results in the plan's order", async () => {
    await finishedJob(batch(), ns.name, 'job-a');
    await finishedJob(batch(), ns.name, 'job-b');
    let reachedB!: () => void;
    const bReached = new Promise<void>((ok) => (reachedB = ok));
    const sent: string[] = [];
    const h = handle({
      policy: () => ({ kubeTidy: { objects: [{ name: 'jobs', kind: 'Job', minAge: '0s', mode: 'delete', namespaces: { include: [ns.name] } }] } }),
      beforeDelete: async (about) => {
        if (about.id.name === 'job-a') await bReached;
        else reachedB();
        sent.push(about.id.name);
      },
    });
    const summary = await runObjectsPass(h.handle, { origin: 'sweep', dryRun: false, namespaces: [ns.name] });
    expect(sent, 'the second DELETE went while the first was held').toEqual(['job-b', 'job-a']);
    expect(summary.results.map((r) => [r.decision.name, r.outcome])).toEqual([
      ['job-a', 'deleted'],
      ['job-b', 'deleted'],
    ]);
    expect([await liveJob(batch(), ns.name, 'job-a'), await liveJob(batch(), ns.name, 'job-b')]).toEqual([undefined, undefined]);
  }, 120_000);
});

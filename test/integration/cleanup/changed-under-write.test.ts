// A pass (cleanup/io/pass.ts: sweep, invoke, the CLI) whose selected pods change between its
// LIST and its write, on the real control plane: the write is tied to the resourceVersion
// listed, the API server answers 409, and the pass reads the pod and decides again as stored,
// once, through the one-pod path's stages with the pass's own writer, brakes and dry run (issue
// 45, item 2). Before, such a pod was answered stale and left for the next pass. The change is
// made on cue by a hook on the writer (test-only): before the first removal of each pod, a real
// write to that pod through the API server.
import { describe, expect, it } from 'vitest';
import { removeSelected } from '../../../shared/cleanup/index.js';
import { runPass } from '../../../shared/cleanup/io/pass.js';
import type { Stored } from '../../../shared/model/identity.js';
import type { Pod } from '../../../shared/model/objects.js';
import { loadPolicy } from '../../../shared/policy/load.js';
import { testNamespace } from '../../harness/index.js';
import { failedPolicy, makePods, podNames, range } from '../brakes/helpers.js';
import { changingHandle, type PodChange } from './changing-pods.js';

const ns = testNamespace('pass-changed');

/** A JSON patch of the pod's labels made before its first removal: `touched` keeps it selected, `away` takes it out. */
const CHANGES = {
  touched: (set: string) => [{ op: 'add', path: '/metadata/labels/touched', value: set }],
  away: () => [{ op: 'remove', path: '/metadata/labels/set' }],
};

/** One pass over the pods labelled set=`prefix`, every removal of which first changes its pod. */
async function passChangingFirst(prefix: string, change: PodChange, dryRun = false) {
  const names = range(prefix, 3);
  await makePods(ns.name, names, { exitCode: 137, labels: { set: prefix } });
  const policy = loadPolicy(failedPolicy([ns.name], {}, { set: prefix })).policy;
  const { handle, changed, close } = changingHandle(policy, ns.name, change);
  try {
    const summary = await runPass(handle, { policy, dryRun, budgetMs: 60_000 });
    // Each pod did change under its first removal: the race this test is about happened.
    expect(changed.sort()).toEqual(names);
    return { summary, names, left: (await podNames(ns.name)).filter((n) => n.startsWith(prefix)) };
  } finally {
    close();
  }
}

describe('a pass whose pods change between its LIST and its write (409)', () => {
  it('reads each again and, still selected as stored, removes it in the same pass', async () => {
    const { summary, left } = await passChangingFirst('still', CHANGES.touched);
    expect(summary.outcomes).toEqual({ deleted: 3 });
    expect(left).toEqual([]);
  });

  it('reads each again and, no longer selected as stored, leaves it: stale, saying why as stored', async () => {
    const { summary, names, left } = await passChangingFirst('away', CHANGES.away);
    expect(summary.outcomes).toEqual({ stale: 3 });
    expect(summary.results.map((r) => r.message)).toEqual(
      names.map(() => expect.stringMatching(/changed since its removal was decided .*as stored: no strategy selects it/)),
    );
    expect(left.sort()).toEqual(names);
  });

  it('in a plan (dryRun) the pod read again goes through the same dry run: nothing is removed', async () => {
    const { summary, names, left } = await passChangingFirst('plan', CHANGES.touched, true);
    expect(summary.outcomes).toEqual({ deleted: 3 });
    expect(summary.results.every((r) => r.dryRun)).toBe(true);
    expect(left.sort()).toEqual(names);
  });
});

// Read again once, then stale (docs/safety.md "When the event is the read": a second 409 answers
// `stale`): a pod that changes under every write costs two writes and a read, never a loop.
describe('a pod that changes under each of its writes', () => {
  let n = 0;
  // A new value each time: a patch that changes nothing changes no resourceVersion either.
  const again: PodChange = () => [{ op: 'add', path: '/metadata/labels/touched', value: `t${++n}` }];

  it('a pass reads it again once, writes once more, and leaves it stale', async () => {
    const names = range('every', 3);
    await makePods(ns.name, names, { exitCode: 137, labels: { set: 'every' } });
    const policy = loadPolicy(failedPolicy([ns.name], {}, { set: 'every' })).policy;
    const { handle, changed, close } = changingHandle(policy, ns.name, again, { every: true });
    try {
      const summary = await runPass(handle, { policy, dryRun: false, budgetMs: 60_000 });
      expect(summary.outcomes).toEqual({ stale: 3 });
      expect(changed.sort()).toEqual(names.flatMap((x) => [x, x]));
      expect((await podNames(ns.name)).filter((x) => x.startsWith('every')).sort()).toEqual(names);
    } finally {
      close();
    }
  });

  it.each([
    { from: 'a reference (read first)', source: (p: Stored<Pod>) => ({ namespace: ns.name, name: p.metadata.name!, uid: p.metadata.uid! }) },
    { from: 'a trusted event’s copy (the read)', source: (p: Stored<Pod>) => ({ watched: p }) },
  ])('the one-pod path from $from reads it again once, writes once more, and answers stale', async ({ from, source }) => {
    const name = from.startsWith('a ref') ? 'one-ref' : 'one-watched';
    const [pod] = await makePods(ns.name, [name], { exitCode: 137, labels: { set: name } });
    const policy = loadPolicy(failedPolicy([ns.name], {}, { set: name })).policy;
    const { handle, changed, close } = changingHandle(policy, ns.name, again, { every: true });
    try {
      const answer = await removeSelected(handle, source(pod as Stored<Pod>));
      expect(answer).toMatchObject({ outcome: 'stale', result: { outcome: 'stale' } });
      expect(changed).toEqual([name, name]);
      expect(await podNames(ns.name)).toContain(name);
    } finally {
      close();
    }
  });
});

// One cycle of `kube-tidy descheduler` (hosts/descheduler/cycle.ts runCycle) on the real control
// plane, where each selected pod changes between the cycle's read and its removal, as a
// crash-looping container's status does at every restart (the kubelet writes restartCount and
// lastState; kwok plays it every 3 s for the descheduler's TestTooManyRestarts). The write is
// tied to the resourceVersion the pod was decided on, so the API server answers 409; the
// descheduler, which evicts without that precondition, evicts such a pod in its cycle. Under
// load the window between read and write grows, and its e2e test waited 50 s for evictions
// the next cycle (100 minutes later) would have made. The pod is read and decided again as
// stored, in the same cycle. The change is made on cue by a hook on the writer (test-only):
// before the first removal of each pod, a real write to that pod through the API server.
import { describe, expect, it } from 'vitest';
import { runCycle } from '../../../shared/hosts/descheduler/cycle.js';
import { loadPolicy } from '../../../shared/policy/load.js';
import type { Policy } from '../../../shared/policy/policy.js';
import { testNamespace } from '../../harness/index.js';
import { failedPolicy, makePods, podNames, range } from '../brakes/helpers.js';
import { changingHandle } from '../cleanup/changing-pods.js';

const ns = testNamespace('descheduler-changed');

/** An annotation, through the API server: the pod the cycle decided on is then no longer the stored one. */
const restarted = (name: string) => [{ op: 'add', path: '/metadata/annotations', value: { 'test.kube-tidy.dev/restarted': name } }];

describe.each([
  { role: "v0.36.0's role", terminalVia: undefined, action: 'deleted' },
  { role: "HEAD's role (no pods delete)", terminalVia: 'eviction' as const, action: 'evicted' },
])('a cycle under $role', ({ terminalVia, action }) => {
  it('removes a selected pod that changed between its read and its removal: read and decided again as stored, in the same cycle', async () => {
    const prefix = `c-${action}`;
    const names = range(prefix, 3);
    const labels = { set: prefix };
    await makePods(ns.name, names, { exitCode: 137, labels });
    const { summary, changed } = await cycleChangingFirst(loadPolicy(failedPolicy([ns.name], {}, labels)).policy, terminalVia);
    // Each pod did change under its first removal: the race this test is about happened.
    expect(changed.sort()).toEqual(names);
    expect((await podNames(ns.name)).filter((n) => n.startsWith(prefix))).toEqual([]);
    expect(summary.outcomes).toEqual({ [action]: 3 });
  });
});

// With kubeTidy.retention, deciding one pod again could push its owner's older pods out of what
// retention keeps, and the one-pod path would remove them too, beyond what the cycle's limits
// counted: such a pod is left for the next cycle (as every stale pod was before).
it('a cycle under kubeTidy.retention leaves a pod that changed under its removal for the next cycle', async () => {
  const prefix = 'c-retention';
  const names = range(prefix, 3);
  const labels = { set: prefix };
  await makePods(ns.name, names, { exitCode: 137, labels });
  const policy = loadPolicy(failedPolicy([ns.name], { kubeTidy: { retention: [{ failed: 1 }] } }, labels)).policy;
  const { summary, changed } = await cycleChangingFirst(policy, undefined);
  expect(changed.sort()).toEqual(names);
  expect((await podNames(ns.name)).filter((n) => n.startsWith(prefix)).sort()).toEqual(names);
  expect(summary.outcomes).toEqual({ stale: 3 });
});

/** One cycle over `policy` whose every removal first changes its pod (restarted), once per pod. */
async function cycleChangingFirst(policy: Policy, terminalVia: 'eviction' | undefined) {
  const writerOptions = { eventStyle: 'descheduler' as const, ...(terminalVia ? { terminalVia } : {}) };
  const { handle, changed, log, metrics, close } = changingHandle(policy, ns.name, restarted, { writerOptions });
  try {
    return { summary: await runCycle({ handle, policy, dryRun: false, budgetMs: 60_000, log, metrics }), changed };
  } finally {
    close();
  }
}

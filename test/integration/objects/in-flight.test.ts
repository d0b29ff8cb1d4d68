// The hostile case "a condition that flips back while the write is in flight", through the pass
// on the real control plane. The test steps in just before the DELETE is sent (the test
// handle's `beforeDelete` seam, test-only): a claim's after the pass has read it again and
// checked it (still Unused), a Job's after the pass listed it Complete (a Job is deleted as it
// was read: act.ts `asDecided`), and changes the stored object:
// - a claim: a pod takes it and kube-controller-manager itself writes Unused=False;
// - a Job: its labels change (a Job's Complete never flips back; any write moves its
//   resourceVersion, which is what the precondition is tied to).
// The DELETE carries the uid and resourceVersion of that read: the API server answers 409
// (precondition failed), the pass says `stale`, and the object is there, not being deleted.
import { describe, expect, it } from 'vitest';
import { runObjectsPass } from '../../../shared/objects/index.js';
import { boundClaim, finishedJob, liveClaim, liveJob, PAUSE, unusedIs, unusedOf } from './fixtures.js';
import { objectsSuite, type DeleteAbout } from './handle.js';

const { ns, core, batch, volumes, handle } = objectsSuite('objects-inflight');

/** A delete pass over one rule, with `flip` run just before each DELETE; what the DELETEs were tied to. */
async function passWith(rule: Record<string, unknown>, flip: (about: DeleteAbout) => Promise<void>) {
  const sent: DeleteAbout[] = [];
  const h = handle({
    policy: () => ({ kubeTidy: { objects: [{ minAge: '0s', mode: 'delete', namespaces: { include: [ns.name] }, ...rule }] } }),
    beforeDelete: async (about) => {
      sent.push(about);
      await flip(about);
    },
  });
  const summary = await runObjectsPass(h.handle, { origin: 'sweep', dryRun: false, namespaces: [ns.name] });
  return { summary, sent };
}

describe('a condition that flips back while the write is in flight', () => {
  it("a claim a pod takes between the pass's re-read and its DELETE: stale, the claim stays", async () => {
    const claim = await boundClaim(core(), volumes, ns.name, 'flipping');
    const { summary, sent } = await passWith({ name: 'claims', kind: 'PersistentVolumeClaim', reclaimPolicy: ['Delete'] }, async () => {
      await core().createNamespacedPod({
        namespace: ns.name,
        body: {
          metadata: { name: 'late-user' },
          spec: { containers: [{ name: 'c', image: PAUSE }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'flipping' } }] },
        },
      });
      // The flip is kube-controller-manager's own write, stored before the DELETE goes.
      await unusedIs(core(), ns.name, 'flipping', 'False');
    });
    expect(sent.map((s) => (s.kind === 'claim' ? [s.id.name, s.id.uid] : s.kind))).toEqual([['flipping', claim.metadata!.uid]]);
    expect(summary.results.map((r) => [r.decision.name, r.outcome])).toEqual([['flipping', 'stale']]);
    const { claim: stored, unused } = await unusedOf(core(), ns.name, 'flipping');
    expect(sent[0]!.id.resourceVersion, 'the DELETE was tied to the re-read, older than what is stored').not.toBe(stored.metadata!.resourceVersion);
    expect(unused?.status).toBe('False');
    expect(await liveClaim(core(), ns.name, 'flipping'), 'the claim is there, not being deleted').toBe(claim.metadata!.uid);
  }, 120_000);

  it("a Job written between the pass's read and its DELETE: stale, the Job stays", async () => {
    const job = await finishedJob(batch(), ns.name, 'moving');
    const { summary, sent } = await passWith({ name: 'jobs', kind: 'Job' }, async (about) => {
      if (about.kind !== 'object') return;
      await batch().patchNamespacedJob({ namespace: ns.name, name: about.id.name, body: [{ op: 'add', path: '/metadata/labels/touched', value: 'yes' }] });
    });
    expect(sent.map((s) => (s.kind === 'object' ? [s.gvr.plural, s.id.name, s.id.uid] : s.kind))).toEqual([['jobs', 'moving', job.metadata!.uid]]);
    expect(summary.results.map((r) => [r.decision.name, r.outcome])).toEqual([['moving', 'stale']]);
    const stored = await batch().readNamespacedJob({ namespace: ns.name, name: 'moving' });
    expect(stored.metadata?.labels?.touched).toBe('yes');
    expect(sent[0]!.id.resourceVersion).not.toBe(stored.metadata!.resourceVersion);
    expect(await liveJob(batch(), ns.name, 'moving'), 'the Job is there, not being deleted').toBe(job.metadata!.uid);
  }, 120_000);
});

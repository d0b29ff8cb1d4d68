// Claims through the whole pass (runObjectsPass: read, decide, brakes, act, Event) on the real
// control plane, the Unused condition written by kube-controller-manager v1.37.2 itself. What an
// operator who once lost data expects, each asserted on the stored claim afterwards:
// - a claim a Pending pod names is kept (kube-controller-manager says Unused=False);
// - a claim of a StatefulSet's volumeClaimTemplates is kept under whenScaled Retain, and removed
//   once the StatefulSet says whenScaled Delete and its ordinal is above the replicas;
// - a claim a Deployment's pod template names is kept, though no pod runs;
// - a claim whose volume's reclaim policy the rule does not acknowledge is kept;
// - an Unused claim is removed only once minAge has passed, with one Event.
// (act.test.ts holds the single-write cases: report and dry run, a pod taking the claim after the
// decision, a forged condition, a claim recreated under the same name.)
import { describe, expect, it } from 'vitest';
import { runObjectsPass, type ObjectsPassSummary } from '../../../shared/objects/index.js';
import { waitFor } from '../../harness/index.js';
import { boundClaim, claimTemplate, liveClaim, PAUSE, unusedIs, unusedOf } from './fixtures.js';
import { objectsSuite } from './handle.js';

const { ns, core, apps, volumes, clients, handle } = objectsSuite('objects-claims');

const rule = (extra: Record<string, unknown> = {}) => ({
  name: 'unused-claims',
  kind: 'PersistentVolumeClaim',
  minAge: '0s',
  mode: 'delete',
  reclaimPolicy: ['Delete'],
  namespaces: { include: [ns.name] },
  ...extra,
});

async function pass(extra: Record<string, unknown> = {}): Promise<ObjectsPassSummary> {
  const h = handle({ policy: () => ({ kubeTidy: { objects: [rule(extra)] } }) });
  return runObjectsPass(h.handle, { origin: 'sweep', dryRun: false, namespaces: [ns.name] });
}

/** What the pass did about one claim: its results' outcomes and why it was kept, if it was. */
const about = (s: ObjectsPassSummary, name: string) => ({
  outcomes: s.results.filter((r) => r.decision.name === name).map((r) => r.outcome),
  kept: s.kept.filter((k) => k.name === name).map((k) => k.reason),
  eligible: s.eligible.filter((e) => e.name === name).length,
});

describe('claims through the pass', () => {
  it('a claim a Pending pod names is kept: its Unused is False', async () => {
    const claim = await boundClaim(core(), volumes, ns.name, 'pending-use');
    // No node matches: the pod stays Pending, and still uses the claim.
    await core().createNamespacedPod({
      namespace: ns.name,
      body: {
        metadata: { name: 'waiting' },
        spec: {
          nodeSelector: { 'kube-tidy.dev/no-such-node': 'true' },
          containers: [{ name: 'c', image: PAUSE }],
          volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'pending-use' } }],
        },
      },
    });
    await unusedIs(core(), ns.name, 'pending-use', 'False');
    expect((await core().readNamespacedPod({ namespace: ns.name, name: 'waiting' })).status?.phase).toBe('Pending');
    const s = await pass();
    expect(about(s, 'pending-use')).toEqual({ outcomes: [], kept: [], eligible: 0 });
    expect(await liveClaim(core(), ns.name, 'pending-use')).toBe(claim.metadata!.uid);
  }, 120_000);

  it("a StatefulSet's claim: kept under whenScaled Retain; removed under whenScaled Delete once above the replicas", async () => {
    await volumes.forClaim(ns.name, 'data-db-0');
    await apps().createNamespacedStatefulSet({
      namespace: ns.name,
      body: {
        metadata: { name: 'db' },
        spec: {
          replicas: 1,
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          persistentVolumeClaimRetentionPolicy: { whenScaled: 'Retain', whenDeleted: 'Retain' },
          template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: PAUSE }] } },
          volumeClaimTemplates: [claimTemplate('data')],
        },
      },
    });
    const inUse = await unusedIs(core(), ns.name, 'data-db-0', 'False');
    await apps().patchNamespacedStatefulSet({ namespace: ns.name, name: 'db', body: [{ op: 'replace', path: '/spec/replicas', value: 0 }] });
    await unusedIs(core(), ns.name, 'data-db-0', 'True');
    const retained = await pass();
    expect(about(retained, 'data-db-0')).toEqual({
      outcomes: [],
      kept: [expect.stringMatching(/StatefulSet db's volumeClaimTemplates data .*whenScaled Retain/)],
      eligible: 0,
    });
    expect(await liveClaim(core(), ns.name, 'data-db-0')).toBe(inUse.metadata!.uid);

    await apps().patchNamespacedStatefulSet({
      namespace: ns.name,
      name: 'db',
      body: [{ op: 'replace', path: '/spec/persistentVolumeClaimRetentionPolicy/whenScaled', value: 'Delete' }],
    });
    await waitFor('the StatefulSet says whenScaled Delete', async () =>
      (await apps().readNamespacedStatefulSet({ namespace: ns.name, name: 'db' })).spec?.persistentVolumeClaimRetentionPolicy?.whenScaled === 'Delete'
        ? true
        : undefined,
    );
    const released = await pass();
    expect(about(released, 'data-db-0').kept).toEqual([]);
    expect(about(released, 'data-db-0').outcomes).toEqual(['deleted']);
    await waitFor('data-db-0 gone', async () => ((await liveClaim(core(), ns.name, 'data-db-0')) === undefined ? true : undefined), { timeoutMs: 60_000 });
  }, 180_000);

  it("a claim a Deployment's pod template names is kept, though no pod uses it", async () => {
    const claim = await boundClaim(core(), volumes, ns.name, 'dep-data');
    await apps().createNamespacedDeployment({
      namespace: ns.name,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'c', image: PAUSE }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'dep-data' } }] },
          },
        },
      },
    });
    expect((await unusedOf(core(), ns.name, 'dep-data')).unused?.status, 'the API server says Unused').toBe('True');
    const s = await pass();
    expect(about(s, 'dep-data')).toEqual({ outcomes: [], kept: ["named by a workload's pod template"], eligible: 0 });
    expect(await liveClaim(core(), ns.name, 'dep-data')).toBe(claim.metadata!.uid);
  }, 120_000);

  it('a claim whose volume has a reclaim policy the rule does not acknowledge is kept', async () => {
    const claim = await boundClaim(core(), volumes, ns.name, 'retained', 'Retain');
    const s = await pass();
    expect(about(s, 'retained')).toEqual({
      outcomes: [],
      kept: [expect.stringMatching(/reclaim policy Retain, which the rule's reclaimPolicy does not accept/)],
      eligible: 0,
    });
    expect(await liveClaim(core(), ns.name, 'retained')).toBe(claim.metadata!.uid);
    // Acknowledged, the same claim goes: the reclaim policy was the only thing keeping it.
    const acknowledged = await pass({ reclaimPolicy: ['Retain'] });
    expect(about(acknowledged, 'retained').outcomes).toEqual(['deleted']);
  }, 120_000);

  it('an Unused claim is removed only once minAge has passed, with one Event', async () => {
    const claim = await boundClaim(core(), volumes, ns.name, 'aging');
    const since = Date.parse(String((await unusedOf(core(), ns.name, 'aging')).unused!.lastTransitionTime));
    const minAgeS = 15;
    const early = await pass({ minAge: `${minAgeS}s` });
    expect(Date.now(), 'the first pass ran before minAge passed').toBeLessThan(since + minAgeS * 1000);
    expect(about(early, 'aging')).toEqual({ outcomes: [], kept: [], eligible: 1 });
    expect(early.eligible.find((e) => e.name === 'aging')?.at).toBe(since + minAgeS * 1000);
    expect(await liveClaim(core(), ns.name, 'aging')).toBe(claim.metadata!.uid);

    await new Promise((r) => setTimeout(r, Math.max(0, since + minAgeS * 1000 - Date.now() + 500)));
    const due = await pass({ minAge: `${minAgeS}s` });
    expect(about(due, 'aging').outcomes).toEqual(['deleted']);
    await waitFor('aging gone', async () => ((await liveClaim(core(), ns.name, 'aging')) === undefined ? true : undefined), { timeoutMs: 60_000 });
    const events = await clients().events.listNamespacedEvent({ namespace: ns.name });
    const said = events.items.filter((e) => e.regarding?.uid === claim.metadata!.uid && e.reason === 'Deleted');
    expect(said.map((e) => [e.regarding?.kind, e.note])).toEqual([['PersistentVolumeClaim', expect.stringContaining('unused-claims')]]);
  }, 120_000);
});

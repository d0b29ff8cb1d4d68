// A ttl rule naming v1/Pod (Kyverno's own TTL tests label pods) removes a pod as every pod is
// removed: DELETEd only when stored terminal, otherwise through the Eviction API, so a
// PodDisruptionBudget holds whatever rule chose the pod. On the real control plane: an expired
// running pod under a PDB that allows no disruption is `blocked` and stays; one no PDB covers is
// `evicted`; an expired Failed pod is `deleted`. The writer refuses a pod's plain object DELETE
// outright (the second line, should a rule path ever ask for one).
import { CoreV1Api, PolicyV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WriteRefusedError } from '../../../shared/kube/writer.js';
import { runObjectsPass, type ObjectsPassSummary } from '../../../shared/objects/index.js';
import { sharedCluster, waitFor } from '../../harness/index.js';
import { testTicket } from '../../fixtures/ticket.js';
import { exists, runPod } from '../functions/setup.js';
import { objectsSuite, type TestHandle } from '../objects/handle.js';

const { ns, handle } = objectsSuite('ttl-pods');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const EXPIRED = { 'cleanup.kyverno.io/ttl': '2020-01-01' };

let h: TestHandle;
let summary: ObjectsPassSummary;
const outcomeOf = (name: string) => summary.results.find((r) => r.decision.name === name);

beforeAll(async () => {
  h = handle({
    policy: () => ({ kubeTidy: { ttl: [{ name: 'pods', mode: 'delete', kinds: [{ version: 'v1', kind: 'Pod' }], namespaces: { include: [ns.name] } }] } }),
  });
  await runPod(core(), ns.name, 'guarded', { labels: { ...EXPIRED, app: 'guarded' } });
  await runPod(core(), ns.name, 'free', { labels: EXPIRED });
  await runPod(core(), ns.name, 'done', { labels: EXPIRED, exitCode: 2 });
  await sharedCluster()
    .kubeConfig()
    .makeApiClient(PolicyV1Api)
    .createNamespacedPodDisruptionBudget({
      namespace: ns.name,
      body: { metadata: { name: 'guarded' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } },
    });
  // The PDB's controller must have counted the pod before an eviction asks it.
  const policy = sharedCluster().kubeConfig().makeApiClient(PolicyV1Api);
  await waitFor('the PDB to count its pod', async () => {
    const pdb = await policy.readNamespacedPodDisruptionBudget({ namespace: ns.name, name: 'guarded' });
    return (pdb.status?.currentHealthy === 1 && pdb.status.observedGeneration === pdb.metadata?.generation) || undefined;
  });
  summary = await runObjectsPass(h.handle, { origin: 'sweep', dryRun: false });
}, 120_000);

afterAll(() => h?.close());

describe('a ttl rule naming Pod', () => {
  it('a running pod under a PodDisruptionBudget that allows none is blocked by the Eviction API and stays', async () => {
    expect(outcomeOf('guarded')).toMatchObject({ outcome: 'blocked' });
    expect(await exists(core(), ns.name, 'guarded')).toBeDefined();
  });

  it('a running pod no budget covers is evicted, not DELETEd', async () => {
    expect(outcomeOf('free')).toMatchObject({ outcome: 'evicted' });
  });

  it('a Failed pod is deleted', async () => {
    expect(outcomeOf('done')).toMatchObject({ outcome: 'deleted' });
  });

  it("the writer refuses a pod's plain object DELETE, and sends nothing", async () => {
    const pod = (await core().readNamespacedPod({ namespace: ns.name, name: 'guarded' })).metadata!;
    const id = { namespace: ns.name, name: 'guarded', uid: pod.uid!, resourceVersion: pod.resourceVersion! };
    await expect(h.handle.writer({ dryRun: false }).deleteAsRead({ group: '', version: 'v1', plural: 'pods' }, id, testTicket(), {})).rejects.toBeInstanceOf(
      WriteRefusedError,
    );
    expect(await exists(core(), ns.name, 'guarded')).toBeDefined();
  });
});

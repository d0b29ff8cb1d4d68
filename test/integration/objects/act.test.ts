// An object decision carried out on the real control plane, and the hostile cases around it:
// a claim a pod takes after the decision, a condition forged in the decision but not stored,
// a claim recreated under the same name, a delete whose resourceVersion is older than the
// stored claim's (a condition written between the re-read and the delete). 0 wrong deletes:
// every one of those leaves the claim. A report-mode rule writes nothing; a Job goes with its
// pods (propagationPolicy Background, the garbage collector removes them).
import { BatchV1Api, CoreV1Api, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeClients, type KubeClients } from '../../../shared/kube/clients.js';
import { ClusterWriter } from '../../../shared/kube/writer.js';
import { decideObjects } from '../../../shared/objects/core/decide.js';
import type { ObjectDecision } from '../../../shared/objects/core/model.js';
import { actOnObject } from '../../../shared/objects/io/act.js';
import { readObjects } from '../../../shared/objects/io/read.js';
import { ObjectRuleSchema, type ObjectRule } from '../../../shared/policy/objects-schema.js';
import { EXIT_CODE_ANNOTATION, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { boundClaim as boundClaimIn, Volumes } from './fixtures.js';
import { testTicket } from '../../fixtures/ticket.js';

const ns = testNamespace('objects-act');
const kc = () => sharedCluster().kubeConfig();
const core = () => kc().makeApiClient(CoreV1Api);
let clients: KubeClients;
const volumes = new Volumes(core);

beforeAll(() => void (clients = kubeClients(kc())));
afterAll(async () => {
  clients.close();
  await volumes.removeAll();
});

const writer = (dryRun = false) => new ClusterWriter(clients, { dryRun, recordEvents: false, protectedNamespaces: [] });
const deps = (rules: ObjectRule[], dryRun = false) => ({ reader: clients, writer: writer(dryRun), rules, now: Date.now });
const claimRule = (mode: 'report' | 'delete') =>
  ObjectRuleSchema.parse({ name: 'claims', kind: 'PersistentVolumeClaim', minAge: '0s', namespaces: { include: [ns.name] }, mode, reclaimPolicy: ['Delete'] });

/** A claim bound to a volume made for it (kube-controller-manager writes Unused only on a Bound claim), once it is Unused. */
const boundClaim = (name: string): Promise<V1PersistentVolumeClaim> => boundClaimIn(core(), volumes, ns.name, name);

async function decisionFor(rule: ObjectRule, name: string): Promise<ObjectDecision> {
  const { objects, ctx } = await readObjects(clients, [rule]);
  const d = decideObjects([rule], objects, ctx, Date.now() + 1000).decisions.find((x) => x.name === name);
  expect(d, `a decision for ${name}`).toBeDefined();
  return d!;
}

const exists = (name: string) =>
  core()
    .readNamespacedPersistentVolumeClaim({ namespace: ns.name, name })
    .then(
      (c) => c.metadata?.uid,
      () => undefined,
    );

describe('an unused claim, decided and deleted', () => {
  it('report mode writes nothing; delete mode deletes it, tied to what it read again', async () => {
    await boundClaim('plain');
    const reported = await actOnObject(deps([claimRule('report')]), await decisionFor(claimRule('report'), 'plain'), testTicket());
    expect(reported.outcome).toBe('reported');
    expect(await exists('plain')).toBeDefined();
    const dry = await actOnObject(deps([claimRule('delete')], true), await decisionFor(claimRule('delete'), 'plain'), testTicket());
    expect(dry).toMatchObject({ outcome: 'deleted', dryRun: true });
    const afterDry = await core().readNamespacedPersistentVolumeClaim({ namespace: ns.name, name: 'plain' });
    expect(afterDry.metadata?.deletionTimestamp, 'a dry run deletes nothing').toBeUndefined();
    const done = await actOnObject(deps([claimRule('delete')]), await decisionFor(claimRule('delete'), 'plain'), testTicket());
    expect(done.outcome, done.message).toBe('deleted');
    await waitFor('plain gone', async () => ((await exists('plain')) === undefined ? true : undefined));
  }, 120_000);

  it('a pod that takes the claim after the decision keeps it (even while the condition still says Unused)', async () => {
    await boundClaim('taken');
    const d = await decisionFor(claimRule('delete'), 'taken');
    await core().createNamespacedPod({
      namespace: ns.name,
      body: {
        metadata: { name: 'taker' },
        spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'taken' } }] },
      },
    });
    const r = await actOnObject(deps([claimRule('delete')]), d, testTicket());
    expect(r.outcome).toBe('kept');
    expect(r.message).toMatch(/no longer matches|used by pod .*taker/);
    expect(await exists('taken')).toBeDefined();
  }, 120_000);

  it('a condition forged in the decision but not stored changes nothing', async () => {
    await boundClaim('busy');
    await core().createNamespacedPod({
      namespace: ns.name,
      body: {
        metadata: { name: 'user' },
        spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'busy' } }] },
      },
    });
    const stored = await waitFor(
      'busy in use',
      async () => {
        const c = await core().readNamespacedPersistentVolumeClaim({ namespace: ns.name, name: 'busy' });
        return c.status?.conditions?.some((x) => x.type === 'Unused' && x.status === 'False') ? c : undefined;
      },
      { timeoutMs: 60_000 },
    );
    const forged: ObjectDecision = {
      kind: 'PersistentVolumeClaim',
      namespace: ns.name,
      name: 'busy',
      uid: stored.metadata!.uid!,
      resourceVersion: stored.metadata!.resourceVersion!,
      rule: 'claims',
      mode: 'delete',
      condition: 'Unused=True (NoPodsUsingPVC)',
      since: 0,
      reason: 'forged',
      target: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: ns.name, name: 'busy', uid: stored.metadata!.uid! },
    };
    const r = await actOnObject(deps([claimRule('delete')]), forged, testTicket());
    expect(r.outcome).toBe('kept');
    expect(await exists('busy')).toBe(stored.metadata!.uid);
  }, 120_000);

  it('a claim recreated under the same name since the decision is a new object: left alone', async () => {
    const first = await boundClaim('again');
    const d = await decisionFor(claimRule('delete'), 'again');
    await core().deleteNamespacedPersistentVolumeClaim({ namespace: ns.name, name: 'again' });
    await waitFor('again gone', async () => ((await exists('again')) === undefined ? true : undefined), { timeoutMs: 60_000 });
    const second = await boundClaim('again');
    expect(second.metadata!.uid).not.toBe(first.metadata!.uid);
    const r = await actOnObject(deps([claimRule('delete')]), d, testTicket());
    expect(r.outcome).toBe('gone');
    expect(await exists('again')).toBe(second.metadata!.uid);
  }, 120_000);

  it('a delete tied to an older resourceVersion (the claim written since the re-read) is refused as stale', async () => {
    const c = await boundClaim('moved');
    const now = await core().readNamespacedPersistentVolumeClaim({ namespace: ns.name, name: 'moved' });
    now.metadata!.labels = { touched: 'yes' };
    await core().replaceNamespacedPersistentVolumeClaim({ namespace: ns.name, name: 'moved', body: now });
    const outcome = await writer().deleteClaim(
      { namespace: ns.name, name: 'moved', uid: c.metadata!.uid!, resourceVersion: c.metadata!.resourceVersion! },
      testTicket(),
    );
    expect(outcome).toBe('stale');
    expect(await exists('moved')).toBe(c.metadata!.uid);
  }, 120_000);
});

describe('a finished Job, deleted', () => {
  it('goes with its pods (propagationPolicy Background)', async () => {
    const batch = kc().makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({
      namespace: ns.name,
      body: {
        metadata: { name: 'done' },
        spec: {
          template: {
            metadata: { annotations: { [EXIT_CODE_ANNOTATION]: '0' } },
            spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
          },
        },
      },
    });
    const podsOf = async () => (await core().listNamespacedPod({ namespace: ns.name, labelSelector: 'job-name=done' })).items.length;
    await waitFor('the Job pod', async () => ((await podsOf()) > 0 ? true : undefined), { timeoutMs: 60_000 });
    // kwok's stage (harness) ends the pod with exit code 0; the Job controller then writes Complete.
    await waitFor(
      'the Job Complete',
      async () =>
        (await batch.readNamespacedJob({ namespace: ns.name, name: 'done' })).status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')
          ? true
          : undefined,
      {
        timeoutMs: 60_000,
      },
    );
    const rule = ObjectRuleSchema.parse({ name: 'jobs', kind: 'Job', minAge: '0s', mode: 'delete', namespaces: { include: [ns.name] } });
    const d = await decisionFor(rule, 'done');
    expect((await actOnObject(deps([rule]), d, testTicket())).outcome).toBe('deleted');
    await waitFor(
      'Job and pods gone',
      async () =>
        (await podsOf()) === 0 &&
        (await batch.readNamespacedJob({ namespace: ns.name, name: 'done' }).then(
          () => false,
          () => true,
        ))
          ? true
          : undefined,
      {
        timeoutMs: 60_000,
      },
    );
  }, 120_000);
});

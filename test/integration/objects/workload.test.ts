// A finished Kueue Workload, on a control plane of its own (Kueue's CRDs installed; its own
// garbage collector and Job controller, kwok running the Jobs' pods). Kueue's controller is
// played by a stand-in for its one rule used here (test/harness/kueue-workload-standin.ts: a
// Job that finished marks the Workload it controls Finished). The Workload is owned by its Job
// (ownerReference controller=true, as Kueue creates it); a delete rule removes the Job, with
// propagationPolicy Background, and the garbage collector takes the Workload (kueue#14672).
// Report mode removes nothing. Hostile: the Workload's owner replaced under the same name
// (another uid) between the decision and the owner's re-read: not deleted, answered stale.
import { BatchV1Api, CoreV1Api, CustomObjectsApi, type V1Job } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeClients, type KubeClients } from '../../../shared/kube/clients.js';
import { runObjectsPass } from '../../../shared/objects/index.js';
import { WORKLOADS } from '../../../shared/objects/io/read.js';
import { upstreamCrdsDir, startCluster, startKueueWorkloadStandin, waitFor, type Cluster, type KueueWorkloadStandin } from '../../harness/index.js';
import { finishedJob, liveJob, PAUSE } from './fixtures.js';
import { testHandle, type TestHandle } from './handle.js';

const NS = 'training';
let cluster: Cluster;
let clients: KubeClients;
let core: CoreV1Api;
let batch: BatchV1Api;
let custom: CustomObjectsApi;
let standin: KueueWorkloadStandin;
const handles: TestHandle[] = [];

beforeAll(async () => {
  cluster = await startCluster({ name: 'objects-kueue', crdDirs: [upstreamCrdsDir('kueue')], kwokNodes: 1 });
  const kc = cluster.kubeConfig();
  clients = kubeClients(kc);
  core = kc.makeApiClient(CoreV1Api);
  batch = kc.makeApiClient(BatchV1Api);
  custom = kc.makeApiClient(CustomObjectsApi);
  await core.createNamespace({ body: { metadata: { name: NS } } });
  await waitFor('default ServiceAccount', () => core.readNamespacedServiceAccount({ namespace: NS, name: 'default' }).then(() => true));
  standin = startKueueWorkloadStandin({ custom, batch, namespace: NS });
}, 120_000);

afterAll(async () => {
  standin?.stop();
  for (const h of handles) h.close();
  clients?.close();
  await cluster?.stop();
});

const rule = (mode: 'report' | 'delete') => ({ name: 'finished-workloads', kind: 'Workload', minAge: '0s', mode, namespaces: { include: [NS] } });

function handle(mode: 'report' | 'delete', hooks: Partial<Parameters<typeof testHandle>[0]> = {}) {
  const h = testHandle({ clients, ledgerNamespace: NS, policy: () => ({ kubeTidy: { objects: [rule(mode)] } }), ...hooks });
  handles.push(h);
  return h.handle;
}

/** A Workload as Kueue creates one for a Job: named for it, controlled by it (blockOwnerDeletion). */
async function workloadOf(job: V1Job): Promise<string> {
  const name = `job-${job.metadata!.name}-${job.metadata!.uid!.slice(0, 5)}`;
  await custom.createNamespacedCustomObject({
    ...WORKLOADS,
    namespace: NS,
    body: {
      apiVersion: `${WORKLOADS.group}/${WORKLOADS.version}`,
      kind: 'Workload',
      metadata: {
        name,
        labels: { 'kueue.x-k8s.io/job-uid': job.metadata!.uid! },
        ownerReferences: [
          { apiVersion: 'batch/v1', kind: 'Job', name: job.metadata!.name!, uid: job.metadata!.uid!, controller: true, blockOwnerDeletion: true },
        ],
      },
      spec: { queueName: 'user-queue', podSets: [{ name: 'main', count: 1, template: { spec: { containers: [{ name: 'c', image: PAUSE }] } } }] },
    },
  });
  return name;
}

type Stored = { metadata?: { uid?: string; deletionTimestamp?: string }; status?: { conditions?: { type: string; status: string; reason?: string }[] } };
const readWorkload = (name: string) =>
  custom.getNamespacedCustomObject({ ...WORKLOADS, namespace: NS, name }).then(
    (w) => w as Stored,
    () => undefined,
  );

const finished = (name: string) =>
  waitFor(
    `Workload ${name} Finished`,
    async () => {
      const w = await readWorkload(name);
      return w?.status?.conditions?.find((c) => c.type === 'Finished' && c.status === 'True');
    },
    { timeoutMs: 60_000 },
  );

describe('a Workload its Job finished', () => {
  it('the stand-in marks it Finished; report mode removes nothing; delete mode removes the Job, and the Workload goes with it', async () => {
    const job = await finishedJob(batch, NS, 'train');
    const wl = await workloadOf(job);
    expect((await finished(wl)).reason).toBe('Succeeded');

    const reported = await runObjectsPass(handle('report'), { origin: 'sweep', dryRun: false, namespaces: [NS] });
    expect(reported.notServed).toEqual([]);
    expect(reported.results.map((r) => [r.decision.name, r.outcome, r.decision.target.kind, r.decision.target.name])).toEqual([
      [wl, 'reported', 'Job', 'train'],
    ]);
    expect(await liveJob(batch, NS, 'train')).toBe(job.metadata!.uid);
    expect((await readWorkload(wl))?.metadata?.deletionTimestamp).toBeUndefined();

    const done = await runObjectsPass(handle('delete'), { origin: 'sweep', dryRun: false, namespaces: [NS] });
    expect(done.results.map((r) => [r.decision.name, r.outcome, r.message])).toEqual([[wl, 'deleted', undefined]]);
    await waitFor(
      'the Job, its pod and the Workload gone',
      async () => {
        const pods = await core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=train' });
        const jobGone = await batch.readNamespacedJob({ namespace: NS, name: 'train' }).then(
          () => false,
          () => true,
        );
        return jobGone && pods.items.length === 0 && (await readWorkload(wl)) === undefined ? true : undefined;
      },
      { timeoutMs: 60_000 },
    );
    // One Event on what was removed: the Job, by the rule.
    const events = await clients.events.listNamespacedEvent({ namespace: NS });
    const said = events.items.filter((e) => e.regarding?.uid === job.metadata!.uid && e.reason === 'Deleted');
    expect(said.map((e) => e.note)).toEqual([expect.stringContaining('finished-workloads')]);
  }, 180_000);

  it('a Workload whose owner was replaced under the same name (another uid) is not deleted', async () => {
    const first = await finishedJob(batch, NS, 'swap');
    const wl = await workloadOf(first);
    await finished(wl);
    let replaced: string | undefined;
    const h = handle('delete', {
      // The pass decided on the first Job; just before it reads the owner again, the Job is
      // replaced: deleted (its dependents orphaned, so the Workload stays) and made again.
      beforeOwnerRead: async (at) => {
        if (at.plural !== 'jobs' || replaced) return;
        await batch.deleteNamespacedJob({ namespace: NS, name: 'swap', propagationPolicy: 'Orphan' });
        await waitFor('the first Job gone', async () => ((await liveJob(batch, NS, 'swap')) === undefined ? true : undefined), { timeoutMs: 60_000 });
        await waitFor(
          'the first Job gone for good',
          () =>
            batch.readNamespacedJob({ namespace: NS, name: 'swap' }).then(
              () => undefined,
              () => true,
            ),
          { timeoutMs: 60_000 },
        );
        const again = await batch.createNamespacedJob({
          namespace: NS,
          body: {
            metadata: { name: 'swap' },
            spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: PAUSE }] } } },
          },
        });
        replaced = again.metadata!.uid!;
        // Once the Job controller has written the new Job's Suspended condition, nothing moves it:
        // a delete tied to what is read next would go through, so only the uid check stops it.
        await waitFor(
          'the new Job Suspended',
          async () =>
            (await batch.readNamespacedJob({ namespace: NS, name: 'swap' })).status?.conditions?.some((c) => c.type === 'Suspended' && c.status === 'True')
              ? true
              : undefined,
          { timeoutMs: 60_000 },
        );
        await new Promise((r) => setTimeout(r, 1000));
      },
    });
    const r = await runObjectsPass(h, { origin: 'sweep', dryRun: false, namespaces: [NS] });
    expect(replaced, 'the owner was replaced mid-pass').toBeDefined();
    expect(replaced).not.toBe(first.metadata!.uid);
    const mine = r.results.filter((x) => x.decision.name === wl);
    expect(mine.map((x) => [x.outcome, x.decision.target.uid])).toEqual([['stale', first.metadata!.uid]]);
    expect(await liveJob(batch, NS, 'swap'), 'the new Job under the old name is untouched').toBe(replaced);
    expect((await readWorkload(wl))?.metadata?.deletionTimestamp, 'the Workload is not deleted').toBeUndefined();
  }, 180_000);
});

// The objects' direct requests (kube/direct-objects.ts) and the writer's deleteAsRead against the
// real API server (issue 45): a DELETE tied to the uid and resourceVersion of a read lands only
// on that very version. A Job written or recreated between the read and the DELETE is not
// deleted (stale); one already gone answers gone; a dry run persists nothing; a protected
// namespace is refused before anything is sent. The direct reads answer what client-node's
// typed reads answer (the same objects, uids and versions), page by page and one by one.
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { kubeClients } from '../../../shared/kube/clients.js';
import type { Resource } from '../../../shared/kube/direct-paths.js';
import { classifyKubeError } from '../../../shared/kube/errors.js';
import { ClusterWriter, WriteRefusedError, type WriterOptions } from '../../../shared/kube/writer.js';
import type { StoredId } from '../../../shared/model/identity.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { testTicket } from '../../fixtures/ticket.js';

const ns = testNamespace('kube-delete-as-read');
const kc = sharedCluster().kubeConfig();
const batch = kc.makeApiClient(BatchV1Api);
const clients = kubeClients(kc);
afterAll(() => clients.close());
const JOBS: Resource = { group: 'batch', version: 'v1', plural: 'jobs' };
const writer = (o: Partial<WriterOptions> = {}) => new ClusterWriter(clients, { dryRun: false, recordEvents: false, protectedNamespaces: [], ...o });

/**
 * A suspended Job (no pods: only the object matters here), as stored once the Job controller
 * wrote its Suspended condition (its one write to a suspended Job: a read before it is already stale).
 */
async function job(name: string): Promise<V1Job> {
  await batch.createNamespacedJob({
    namespace: ns.name,
    body: {
      metadata: { name },
      spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } } },
    },
  });
  return waitFor(`Job ${name} Suspended`, async () => {
    const j = await batch.readNamespacedJob({ namespace: ns.name, name });
    return j.status?.conditions?.some((c) => c.type === 'Suspended' && c.status === 'True') ? j : undefined;
  });
}

const idOf = (j: V1Job): StoredId => ({ namespace: ns.name, name: j.metadata!.name!, uid: j.metadata!.uid!, resourceVersion: j.metadata!.resourceVersion! });

/** The stored Job's uid, or undefined once it is gone or being deleted. */
const live = (name: string) =>
  batch.readNamespacedJob({ namespace: ns.name, name }).then(
    (j) => (j.metadata?.deletionTimestamp ? undefined : j.metadata?.uid),
    () => undefined,
  );

describe("the writer's deleteAsRead: a Job deleted only as it was read", () => {
  it('the read version: deleted', async () => {
    const j = await job('as-read');
    expect(await writer().deleteAsRead(JOBS, idOf(j), testTicket(), { propagationPolicy: 'Background' })).toBe('deleted');
    expect(await live('as-read')).toBeUndefined();
  });

  it('written between the read and the DELETE: stale, and the Job stays as written', async () => {
    const j = await job('written');
    await batch.patchNamespacedJob({ namespace: ns.name, name: 'written', body: [{ op: 'add', path: '/metadata/labels', value: { touched: 'yes' } }] });
    const w = writer();
    expect(await w.deleteAsRead(JOBS, idOf(j), testTicket(), { propagationPolicy: 'Background' })).toBe('stale');
    const stored = await batch.readNamespacedJob({ namespace: ns.name, name: 'written' });
    expect(stored.metadata?.deletionTimestamp).toBeUndefined();
    expect(stored.metadata?.labels?.touched).toBe('yes');
  });

  it('recreated under its name since the read: stale, and the new Job stays', async () => {
    const old = await job('recreated');
    await batch.deleteNamespacedJob({ namespace: ns.name, name: 'recreated' });
    await waitFor('the old Job gone', async () => ((await live('recreated')) === undefined ? true : undefined));
    await waitFor('the old Job gone for good', () =>
      batch.readNamespacedJob({ namespace: ns.name, name: 'recreated' }).then(
        () => undefined,
        () => true,
      ),
    );
    const fresh = await job('recreated');
    expect(await writer().deleteAsRead(JOBS, idOf(old), testTicket())).toBe('stale');
    expect(await live('recreated')).toBe(fresh.metadata!.uid);
  });

  it('already gone: gone', async () => {
    const j = await job('twice');
    expect(await writer().deleteAsRead(JOBS, idOf(j), testTicket())).toBe('deleted');
    await waitFor('the Job gone', () =>
      batch.readNamespacedJob({ namespace: ns.name, name: 'twice' }).then(
        () => undefined,
        () => true,
      ),
    );
    expect(await writer().deleteAsRead(JOBS, idOf(j), testTicket())).toBe('gone');
  });

  it("a dry run: the API server's answer, nothing persisted", async () => {
    const j = await job('dry');
    expect(await writer({ dryRun: true }).deleteAsRead(JOBS, idOf(j), testTicket(), { propagationPolicy: 'Background' })).toBe('deleted');
    expect(await live('dry')).toBe(j.metadata!.uid);
  });

  it('a protected namespace: refused before anything is sent', async () => {
    const j = await job('guarded');
    await expect(writer({ protectedNamespaces: [ns.name] }).deleteAsRead(JOBS, idOf(j), testTicket())).rejects.toBeInstanceOf(WriteRefusedError);
    expect(await live('guarded')).toBe(j.metadata!.uid);
  });
});

describe("the objects' direct reads answer what the typed reads answer", () => {
  it('LIST pages (limit and continue) and the GET of one Job: the same uids and versions; a 404 reads as not-found', async () => {
    for (const name of ['page-a', 'page-b', 'page-c']) await job(name);
    const typed = (await batch.listNamespacedJob({ namespace: ns.name })).items;
    const seen: { uid?: string; resourceVersion?: string }[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await clients.objectReads.list<V1Job>(JOBS, ns.name, { limit: 2, ...(token ? { _continue: token } : {}) });
      pages++;
      seen.push(...(page.items ?? []).map((j) => ({ uid: j.metadata?.uid, resourceVersion: j.metadata?.resourceVersion })));
      token = page.metadata?.continue;
    } while (token);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(typed.map((j) => ({ uid: j.metadata?.uid, resourceVersion: j.metadata?.resourceVersion })));
    const one = await clients.objectReads.get<{ metadata: { uid: string; creationTimestamp: unknown } }>(JOBS, ns.name, 'page-b');
    expect(one.metadata.uid).toBe(typed.find((j) => j.metadata?.name === 'page-b')!.metadata!.uid);
    expect(typeof one.metadata.creationTimestamp, "the wire's JSON: a time is a string").toBe('string');
    const missing = await clients.objectReads.get(JOBS, ns.name, 'nowhere').catch((e: unknown) => e);
    expect(classifyKubeError(missing).kind).toBe('not-found');
  });
});

// DRY_RUN=true writes nothing in any worker: jobDeleted and orphanSweep answer what they
// would delete and evict, and every object they would have changed (the copies, their pods,
// the witness ConfigMap) keeps its resourceVersion, with no kube-tidy Event recorded.
import { EventsV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { jobDeleted } from '../../../functions/job-deleted.js';
import { orphanSweep } from '../../../functions/orphan-sweep.js';
import { waitFor } from '../../harness/index.js';
import { serve } from '../functions/setup.js';
import { storageReady } from './apiserver.js';
import { KUEUE_NS, type Apis, type Env } from './env.js';
import { copyJob, deleteEvent, managerJob, post, tick } from './fixtures.js';
import { namespaceEverywhere } from './ns.js';
import { deleteLikeOldKueue } from './sweep-cases.js';

/** What a worker stores that a cleanup could change: resourceVersions by kind and name, and kube-tidy's Events. */
async function stored(w: Apis, ns: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of (await w.core.listNamespacedPod({ namespace: ns })).items) out[`pod/${p.metadata!.name}`] = p.metadata!.resourceVersion!;
  for (const j of (await w.batch.listNamespacedJob({ namespace: ns })).items) out[`job/${j.metadata!.name}`] = j.metadata!.resourceVersion!;
  for (const c of (await w.core.listNamespacedConfigMap({ namespace: KUEUE_NS })).items) out[`configmap/${c.metadata!.name}`] = c.metadata!.resourceVersion!;
  const events = await w.cluster.kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
  for (const e of events.items.filter((x) => x.reportingController === 'kube-tidy.dev/kube-tidy'))
    out[`event/${e.metadata!.name}`] = e.metadata!.resourceVersion!;
  return out;
}

/** The workers' state once their own controllers (the Job controller's status updates) are done with it. */
async function quiet(e: Env, ns: string): Promise<Record<string, string>[]> {
  let last = await Promise.all(e.workers.map((w) => stored(w, ns)));
  return waitFor(
    'the workers quiet',
    async () => {
      await new Promise((r) => setTimeout(r, 1000));
      const now = await Promise.all(e.workers.map((w) => stored(w, ns)));
      const same = JSON.stringify(now) === JSON.stringify(last);
      last = now;
      return same && now;
    },
    { timeoutMs: 60_000 },
  );
}

export function dryRunTests(env: () => Env): void {
  describe('DRY_RUN=true', () => {
    it('jobDeleted and orphanSweep say what they would delete and evict, and write nothing in any worker', async () => {
      const e = env();
      const ns = await namespaceEverywhere(e, 'dryall');
      const [w1, w2] = e.workers;
      for (const w of e.workers) await storageReady(w.cluster);
      // "train": copies in both workers (the cascade's case); "orph": a copy whose pods will be
      // orphaned as old Kueue did (the sweep's pod case). A real sweep witnesses both first.
      const train = await managerJob(e.manager, ns, 'train');
      await copyJob(w1, ns, 'train');
      await copyJob(w2, ns, 'train', { state: 'Completed' });
      await managerJob(e.manager, ns, 'orph');
      await copyJob(w1, ns, 'orph');
      const real = await post(serve(orphanSweep, await e.runtime()), tick());
      expect(real.status, JSON.stringify(real.body)).toBe(200);
      for (const name of ['train', 'orph']) await e.manager.batch.deleteNamespacedJob({ namespace: ns, name, propagationPolicy: 'Background' });
      await deleteLikeOldKueue(w1, ns, 'orph');

      const before = await quiet(e, ns);
      const rt = await e.runtime({ DRY_RUN: 'true', RECORD_EVENTS: 'true' });
      const cascade = await post(serve(jobDeleted, rt), deleteEvent(e.manager, { apiVersion: 'batch/v1', kind: 'Job', ...train }));
      expect(cascade.status, JSON.stringify(cascade.body)).toBe(200);
      expect(cascade.body).toMatchObject({
        dryRun: true,
        workers: [
          { outcome: 'deleted', dryRun: true },
          { outcome: 'deleted', dryRun: true },
        ],
      });
      const swept = await post(serve(orphanSweep, rt), tick());
      expect(swept.status, JSON.stringify(swept.body)).toBe(200);
      const mine = swept.body.workers[0].decisions.filter((d: { namespace: string }) => d.namespace === ns);
      expect(mine.map((d: { kind: string; action: string; result: string }) => `${d.kind}:${d.action}:${d.result}`).sort()).toEqual([
        'Job:delete:deleted',
        'Pod:evict:evicted',
        'Pod:evict:evicted',
      ]);

      await new Promise((r) => setTimeout(r, 1000)); // a real delete would show by now (the garbage collector, kwok)
      const after = await Promise.all(e.workers.map((w) => stored(w, ns)));
      expect(after).toEqual(before);
      expect(Object.keys(after[0]!).filter((k) => k.startsWith('event/'))).toEqual([]);
    });
  });
}

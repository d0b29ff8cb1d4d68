// orphanSweep: the leftover-pods bug (#5452) reproduced and repaired; copies whose manager
// original is gone; what the sweep must never touch; dry run.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { orphanSweep } from '../../../functions/orphan-sweep.js';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { CASCADE_OUTSIDE_BUDGETS, WITNESS_CONFIGMAP } from '../../../shared/multikueue/index.js';
import { waitFor } from '../../harness/index.js';
import type { OrphanData } from '../../../shared/notify/types.js';
import { outSchemas } from '../../fixtures/events/out-schemas.js';
import { receiver } from '../../fixtures/events/receiver.js';
import { serve } from '../functions/setup.js';
import { KUEUE_NS, type Apis, type Env } from './env.js';
import { copyJob, exists, managerJob, noPodsLeft, podsOf, post, tick } from './fixtures.js';
import { namespaceEverywhere } from './ns.js';
import { storageReady } from './apiserver.js';

/** Deletes a Job the way Kueue did before v0.13: no propagationPolicy, so batch/v1 orphans the pods. */
export async function deleteLikeOldKueue(w: Apis, ns: string, name: string): Promise<void> {
  await w.batch.deleteNamespacedJob({ namespace: ns, name });
  await waitFor(`${ns}/${name} gone and its pods orphaned`, async () => {
    const pods = await podsOf(w, ns, name);
    return !(await exists(w, ns, name)) && pods.length > 0 && pods.every((p) => !p.metadata?.ownerReferences?.length);
  });
}

const witnessed = async (w: Apis) => Object.keys((await w.core.readNamespacedConfigMap({ namespace: KUEUE_NS, name: WITNESS_CONFIGMAP })).data ?? {});

export function sweepTests(env: () => Env): void {
  describe('orphanSweep', () => {
    it('a remote Job deleted with no propagation policy leaves Running and Completed pods behind (#5452), and the sweep removes them', async () => {
      const e = env();
      const ns = await namespaceEverywhere(e, 'bug');
      const [w1] = e.workers;
      await managerJob(e.manager, ns, 'train');
      await managerJob(e.manager, ns, 'eval');
      const train = await copyJob(w1, ns, 'train', { state: 'Running' });
      const evalJob = await copyJob(w1, ns, 'eval', { state: 'Completed' });
      const agent = serve(orphanSweep, await e.runtime());
      // The sweep rightly answers 503 while a worker's storage re-initializes; wait it out.
      for (const w of e.workers) await storageReady(w.cluster);

      // A sweep while the manager's Jobs exist: nothing to delete, the copies are witnessed.
      const before = await post(agent, tick());
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      expect(before.body.workers[0].decisions.filter((d: { namespace: string }) => d.namespace === ns)).toEqual([]);
      expect(await witnessed(w1)).toEqual(expect.arrayContaining([train.job.metadata!.uid, evalJob.job.metadata!.uid]));

      // The bug: the manager's Jobs go, the copies are deleted without propagation, pods stay.
      for (const name of ['train', 'eval']) {
        await e.manager.batch.deleteNamespacedJob({ namespace: ns, name, propagationPolicy: 'Background' });
        await deleteLikeOldKueue(w1, ns, name);
      }
      await new Promise((r) => setTimeout(r, 2000));
      expect((await podsOf(w1, ns, 'train')).map((p) => p.status?.phase)).toEqual(['Running', 'Running']);
      expect((await podsOf(w1, ns, 'eval')).map((p) => p.status?.phase)).toEqual(['Succeeded', 'Succeeded']);
      // One running orphan marked request-evict-only: the sweep still evicts it (its Job is gone
      // from the manager; no workload to preserve, no evacuation family in a worker to ask).
      const [markedPod] = await podsOf(w1, ns, 'train');
      await w1.core.patchNamespacedPod(
        { namespace: ns, name: markedPod!.metadata!.name!, body: { metadata: { annotations: { [ANNOTATIONS.requestEvictOnly]: '' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );

      const res = await post(agent, tick());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const report = res.body.workers[0];
      const mine = report.decisions.filter((d: { namespace: string }) => d.namespace === ns);
      expect(mine.map((d: { action: string; result: string }) => `${d.action}:${d.result}`).sort()).toEqual([
        'delete:deleted',
        'delete:deleted',
        'evict:evicted',
        'evict:evicted',
      ]);
      // Requests as the clients counted them (RECORD_EVENTS is off, so no Events): in the manager,
      // one LIST each of Jobs, JobSets and Workloads; in the worker, those three, its Job pods
      // and the witness record, then one request per removal and one witness write if it changed.
      expect(res.body.managerRequests).toBe(3);
      const removals = report.decisions.filter((d: { action: string }) => d.action === 'delete' || d.action === 'evict').length;
      expect(report.requests).toBe(5 + removals + (report.witness === 'unchanged' ? 0 : 1));
      await noPodsLeft(w1, ns, 'train');
      await noPodsLeft(w1, ns, 'eval');
    });

    it('a copy whose manager Job is gone is deleted with its pods; one whose manager Job exists is kept', async () => {
      const e = env();
      const ns = await namespaceEverywhere(e, 'gone');
      const [, w2] = e.workers;
      await managerJob(e.manager, ns, 'kept');
      await copyJob(w2, ns, 'kept');
      await copyJob(w2, ns, 'lost', { state: 'Completed' });
      // Every decision out as a CloudEvent (issue 26): a real receiver for this sweep.
      const sink = await receiver();
      let res;
      try {
        res = await post(serve(orphanSweep, await e.runtime({ EVENTS_SINK: sink.url })), tick());
        await waitFor('the orphan sweep’s pass.completed', async () => sink.events.some((c) => c.type === 'dev.kube-tidy.pass.completed.v1') || undefined);
      } finally {
        sink.close();
      }
      expect(res.status).toBe(200);
      const mine = res.body.workers[1].decisions.filter((d: { namespace: string }) => d.namespace === ns);
      expect(mine).toMatchObject([{ kind: 'Job', name: 'lost', action: 'delete', result: 'deleted' }]);
      // The orphan it deleted, as an event like its answer's decision, then its summary (kind orphan-sweep) after every decision.
      const orphans = sink.events.filter((c) => c.type === 'dev.kube-tidy.multikueue.orphan.v1' && (c.data as OrphanData).namespace === ns);
      expect(orphans.map((c) => c.data)).toMatchObject([
        // Outside the budgets on purpose, and the event says why (its unlimited ticket's reason).
        { worker: 'worker-2', kind: 'Job', name: 'lost', action: 'delete', result: 'deleted', outsideBudgets: CASCADE_OUTSIDE_BUDGETS, dryRun: false },
      ]);
      expect(orphans[0]!.subject).toBe(`namespaces/${ns}/jobs/lost`);
      const completed = sink.events.findIndex((c) => c.type === 'dev.kube-tidy.pass.completed.v1');
      expect(sink.events[completed]!.data).toMatchObject({ kind: 'orphan-sweep', outcome: 'swept' });
      expect(completed).toBe(sink.events.length - 1);
      const schemas = outSchemas();
      for (const c of sink.events) expect(schemas.check(c.dataschema!, c.data), c.type).toEqual([]);
      await noPodsLeft(w2, ns, 'lost');
      expect(await exists(w2, ns, 'kept')).toBe(true);
      expect(await podsOf(w2, ns, 'kept')).toHaveLength(2);
    });

    it('Jobs with another origin or none, and orphaned pods of Jobs never seen with our origin, are never touched', async () => {
      const e = env();
      const ns = await namespaceEverywhere(e, 'never');
      const [w1] = e.workers;
      await copyJob(w1, ns, 'other', { origin: 'another-manager' });
      await copyJob(w1, ns, 'plain', { origin: null });
      const bare = await copyJob(w1, ns, 'bare', { origin: null, state: 'Completed' });
      const agent = serve(orphanSweep, await e.runtime());
      await post(agent, tick());
      await deleteLikeOldKueue(w1, ns, 'bare');
      const res = await post(agent, tick());
      expect(res.status).toBe(200);
      expect(res.body.workers[0].decisions.filter((d: { namespace: string }) => d.namespace === ns)).toEqual([]);
      expect(await exists(w1, ns, 'other')).toBe(true);
      expect(await exists(w1, ns, 'plain')).toBe(true);
      expect((await podsOf(w1, ns, 'bare')).map((p) => p.metadata?.uid).sort()).toEqual(bare.pods.map((p) => p.metadata?.uid).sort());
    });

    it('a dry run changes nothing and reports what it would delete', async () => {
      const e = env();
      const ns = await namespaceEverywhere(e, 'drysweep');
      const [w1] = e.workers;
      await copyJob(w1, ns, 'lost');
      const res = await post(serve(orphanSweep, await e.runtime({ DRY_RUN: 'true' })), tick());
      expect(res.status).toBe(200);
      expect(res.body.dryRun).toBe(true);
      expect(res.body.workers[0].decisions.filter((d: { namespace: string }) => d.namespace === ns)).toMatchObject([
        { name: 'lost', action: 'delete', result: 'deleted' },
      ]);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await exists(w1, ns, 'lost')).toBe(true);
      expect(await podsOf(w1, ns, 'lost')).toHaveLength(2);
    });
  });
}

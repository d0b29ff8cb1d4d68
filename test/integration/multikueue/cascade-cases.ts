// jobDeleted over HTTP: a Knative resource.delete CloudEvent for the manager's Job in, the
// copies in both workers deleted with propagation, no pod left behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CascadeData } from '../../../shared/notify/types.js';
import { outSchemas } from '../../fixtures/events/out-schemas.js';
import { receiver, type Receiver } from '../../fixtures/events/receiver.js';
import { jobDeleted } from '../../../functions/job-deleted.js';
import { multiKueueParts, ORIGIN_LABEL } from '../../../shared/multikueue/index.js';
import { serveParts } from '../due/setup.js';
import { waitFor } from '../../harness/index.js';
import { serve } from '../functions/setup.js';
import type { Env } from './env.js';
import { copyJob, deleteEvent, exists, managerJob, noPodsLeft, podsOf, post, QUEUED } from './fixtures.js';
import type { HttpMode } from '../../../shared/cloudevents/index.js';
import { namespaceEverywhere } from './ns.js';

export function cascadeTests(env: () => Env): void {
  describe('jobDeleted (the event path)', () => {
    // Every decision out as a CloudEvent (issue 26): a real receiver for this block's cascades.
    let sink: Receiver;
    const schemas = outSchemas();
    beforeAll(async () => {
      sink = await receiver();
    });
    afterAll(() => sink.close());
    // The sink in each instance's environment, as its host reads it at start.
    const withSink = (env: Record<string, string> = {}) => ({ ...env, EVENTS_SINK: sink.url });
    for (const mode of ['binary', 'structured'] as HttpMode[]) {
      it(`a manager Job's deletion (${mode} CloudEvent) leaves no pod behind in either worker, Running or Completed`, async () => {
        const e = env();
        const ns = await namespaceEverywhere(e, 'event');
        const job = await managerJob(e.manager, ns, 'train');
        await copyJob(e.workers[0], ns, 'train', { state: 'Running' });
        await copyJob(e.workers[1], ns, 'train', { state: 'Completed' });
        await e.manager.batch.deleteNamespacedJob({ namespace: ns, name: 'train', propagationPolicy: 'Background' });

        const agent = serve(jobDeleted, await e.runtime(withSink()));
        const res = await post(agent, deleteEvent(e.manager, { apiVersion: 'batch/v1', kind: 'Job', ...job }, mode));
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.workers.map((w: { worker: string; outcome: string }) => [w.worker, w.outcome])).toEqual([
          ['worker-1', 'deleted'],
          ['worker-2', 'deleted'],
        ]);
        // Each cascade reports the requests sent to its worker, as that worker's clients counted
        // them: the read and the delete (RECORD_EVENTS is off, so no Event).
        expect(res.body.workers.map((w: { requests: number }) => w.requests)).toEqual([2, 2]);
        for (const w of e.workers) {
          await noPodsLeft(w, ns, 'train');
          expect(await exists(w, ns, 'train')).toBe(false);
        }
        // Delivered again (Knative retries, duplicates): nothing left to do, still 200.
        const again = await post(agent, deleteEvent(e.manager, { apiVersion: 'batch/v1', kind: 'Job', ...job }, mode));
        expect(again.status).toBe(200);
        expect(again.body.workers.map((w: { outcome: string }) => w.outcome)).toEqual(['gone', 'gone']);
        expect(again.body.workers.map((w: { requests: number }) => w.requests)).toEqual([1, 1]);
        // Each worker's cascade went out as a CloudEvent, as the answers said, valid against its schema.
        const cascades = () => sink.events.filter((c) => c.type === 'dev.kube-tidy.multikueue.cascade.v1' && (c.data as CascadeData).namespace === ns);
        await waitFor('the four cascade events', async () => cascades().length === 4 || undefined);
        expect(cascades().map((c) => [(c.data as CascadeData).worker, (c.data as CascadeData).outcome, c.subject, c.source])).toEqual(
          expect.arrayContaining([
            ['worker-1', 'deleted', `namespaces/${ns}/jobs/train`, 'kube-tidy/jobDeleted'],
            ['worker-2', 'deleted', `namespaces/${ns}/jobs/train`, 'kube-tidy/jobDeleted'],
            ['worker-1', 'gone', `namespaces/${ns}/jobs/train`, 'kube-tidy/jobDeleted'],
            ['worker-2', 'gone', `namespaces/${ns}/jobs/train`, 'kube-tidy/jobDeleted'],
          ]),
        );
        for (const c of cascades()) expect(schemas.check(c.dataschema!, c.data)).toEqual([]);
        // Each worker's own in order: deleted, then gone.
        for (const w of ['worker-1', 'worker-2'])
          expect(
            cascades()
              .filter((c) => (c.data as CascadeData).worker === w)
              .map((c) => (c.data as CascadeData).outcome),
          ).toEqual(['deleted', 'gone']);
      });
    }

    it('a deleted Job Kueue never queued (no queue-name label; the watch takes every Job) is nothing to do, with no request to any cluster', async () => {
      const e = env();
      const ns = await namespaceEverywhere(e, 'unqueued');
      const job = await managerJob(e.manager, ns, 'plain', { queued: false });
      // A namesake copy of our origin in a worker: left alone all the same (orphanSweep's, were it a real orphan).
      const { pods } = await copyJob(e.workers[0], ns, 'plain');
      const rt = await e.runtime(withSink());
      // Every request the manager's and the workers' clients send, counted as the benchmark counts them.
      let requests = 0;
      const agent = serveParts(jobDeleted, multiKueueParts(rt, { onRequest: () => void requests++ }), rt);
      const res = await post(agent, deleteEvent(e.manager, { apiVersion: 'batch/v1', kind: 'Job', ...job }));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ outcome: 'nothing-to-do', job: `${ns}/plain`, kind: 'batch/Job' });
      expect(res.body.why).toContain('no kueue.x-k8s.io/queue-name label');
      expect(res.body.workers).toBeUndefined();
      expect(requests).toBe(0);
      expect(await exists(e.workers[0], ns, 'plain')).toBe(true);
      expect((await podsOf(e.workers[0], ns, 'plain')).map((p) => p.metadata?.uid).sort()).toEqual(pods.map((p) => p.metadata?.uid).sort());
      // The same deletion of a queued Job, through the same counted clients: it cascades.
      const queued = { ...job, metadata: { ...job.metadata, labels: QUEUED } };
      const cascaded = await post(agent, deleteEvent(e.manager, { apiVersion: 'batch/v1', kind: 'Job', ...queued }));
      expect(cascaded.body.workers.map((w: { outcome: string }) => w.outcome)).toEqual(['deleted', 'gone']);
      expect(requests).toBeGreaterThan(0);
    });

    const foreign: { sentence: string; origin: string | null; outcome: string }[] = [
      { sentence: 'a copy labelled with another origin is never touched', origin: 'another-manager', outcome: 'other-origin' },
      { sentence: 'a Job of the same name with no origin label is never touched', origin: null, outcome: 'no-origin' },
    ];
    for (const c of foreign) {
      it(c.sentence, async () => {
        const e = env();
        const ns = await namespaceEverywhere(e, 'foreign');
        const job = await managerJob(e.manager, ns, 'train');
        const { pods } = await copyJob(e.workers[0], ns, 'train', { origin: c.origin });
        const res = await post(serve(jobDeleted, await e.runtime(withSink())), deleteEvent(e.manager, { apiVersion: 'batch/v1', kind: 'Job', ...job }));
        expect(res.status).toBe(200);
        expect(res.body.workers[0]).toMatchObject({ worker: 'worker-1', outcome: c.outcome });
        expect(res.body.workers[1]).toMatchObject({ worker: 'worker-2', outcome: 'gone' });
        expect(await exists(e.workers[0], ns, 'train')).toBe(true);
        expect((await podsOf(e.workers[0], ns, 'train')).map((p) => p.metadata?.uid).sort()).toEqual(pods.map((p) => p.metadata?.uid).sort());
      });
    }

    it('a dry run deletes nothing and reports what it would have deleted', async () => {
      const e = env();
      const ns = await namespaceEverywhere(e, 'dry');
      const job = await managerJob(e.manager, ns, 'train');
      await copyJob(e.workers[0], ns, 'train');
      const res = await post(
        serve(jobDeleted, await e.runtime(withSink({ DRY_RUN: 'true' }))),
        deleteEvent(e.manager, { apiVersion: 'batch/v1', kind: 'Job', ...job }),
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        dryRun: true,
        workers: [
          { worker: 'worker-1', outcome: 'deleted', dryRun: true },
          { worker: 'worker-2', outcome: 'gone' },
        ],
      });
      expect(await exists(e.workers[0], ns, 'train')).toBe(true);
      expect(await podsOf(e.workers[0], ns, 'train')).toHaveLength(2);
    });

    it('a JobSet (a configured group/version/kind) copy with our origin is deleted with Background, its child Job and pods with it', async () => {
      const e = env();
      const ns = await namespaceEverywhere(e, 'jobset');
      const gvr = { group: 'jobset.x-k8s.io', version: 'v1alpha2', plural: 'jobsets' };
      const body = (labels: Record<string, string>) => ({
        apiVersion: 'jobset.x-k8s.io/v1alpha2',
        kind: 'JobSet',
        metadata: { name: 'js', namespace: ns, labels },
        spec: {},
      });
      const managerSet = await e.manager.custom.createNamespacedCustomObject({ ...gvr, namespace: ns, body: body(QUEUED) });
      const copy = await e.workers[0].custom.createNamespacedCustomObject({ ...gvr, namespace: ns, body: body({ [ORIGIN_LABEL]: 'multikueue' }) });
      // The JobSet controller's part: a child Job owned by the JobSet.
      const owner = { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: 'js', uid: copy.metadata.uid, controller: true, blockOwnerDeletion: true };
      const { job: child } = await copyJob(e.workers[0], ns, 'js-workers-0', { origin: null, ownerReferences: [owner] });
      await e.manager.custom.deleteNamespacedCustomObject({ ...gvr, namespace: ns, name: 'js' });

      const res = await post(serve(jobDeleted, await e.runtime(withSink())), deleteEvent(e.manager, managerSet));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        kind: 'jobset.x-k8s.io/JobSet',
        workers: [
          { worker: 'worker-1', outcome: 'deleted' },
          { worker: 'worker-2', outcome: 'gone' },
        ],
      });
      expect(res.body.workers[0].why).toContain('propagation Background');
      await waitFor('the child Job collected', async () => !(await exists(e.workers[0], ns, child.metadata!.name!)), { timeoutMs: 30_000 });
      await noPodsLeft(e.workers[0], ns, 'js-workers-0');
    });

    it('a kind that is not configured is refused with 422 and nothing is written', async () => {
      const e = env();
      const res = await post(
        serve(jobDeleted, await e.runtime(withSink())),
        deleteEvent(e.manager, { apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'r', namespace: 'default', uid: 'u' } }),
      );
      expect(res.status).toBe(422);
      expect(res.body.error).toContain('MULTIKUEUE_JOB_KINDS');
    });
  });
}

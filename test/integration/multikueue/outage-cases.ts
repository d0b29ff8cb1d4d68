// A worker whose API server is down: the other worker is handled at once, the answer is 503
// (so the bridge retries), and the retry, once the worker is back, finishes the job without
// repeating anything already done.
import { describe, expect, it } from 'vitest';
import { jobDeleted } from '../../../functions/job-deleted.js';
import { orphanSweep } from '../../../functions/orphan-sweep.js';
import { serve } from '../functions/setup.js';
import { stopApiserver } from './apiserver.js';
import type { Env } from './env.js';
import { copyJob, deleteEvent, exists, managerJob, noPodsLeft, post, tick } from './fixtures.js';
import { namespaceEverywhere } from './ns.js';

type Row = { worker: string; outcome: string };
const outcomes = (rows: Row[]) => rows.map((r) => [r.worker, r.outcome]);

export function outageTests(env: () => Env): void {
  describe('a stopped worker', () => {
    it('does not hold up the other worker, answers 503, and is cleaned by the retry once back', async () => {
      const e = env();
      const [w1, w2] = e.workers;
      const ns = await namespaceEverywhere(e, 'outage');
      const job = await managerJob(e.manager, ns, 'train');
      await copyJob(w1, ns, 'train');
      await copyJob(w2, ns, 'train');
      await copyJob(w2, ns, 'lost'); // no manager Job: the sweep's business
      await e.manager.batch.deleteNamespacedJob({ namespace: ns, name: 'train', propagationPolicy: 'Background' });
      const rt = await e.runtime();
      const cascade = serve(jobDeleted, rt);
      const sweep = serve(orphanSweep, rt);
      const event = deleteEvent(e.manager, { apiVersion: 'batch/v1', kind: 'Job', ...job });

      const restart = await stopApiserver(w2.cluster);
      try {
        const started = Date.now();
        const first = await post(cascade, event);
        expect(first.status, JSON.stringify(first.body)).toBe(503);
        // The one wrapper's partial-failure answer tells the sender when to come back.
        expect(first.headers['retry-after']).toBe('10');
        expect(outcomes(first.body.workers)).toEqual([
          ['worker-1', 'deleted'],
          ['worker-2', 'unreachable'],
        ]);
        // Refused connections: no waiting for timeouts.
        expect(Date.now() - started).toBeLessThan(5000);
        await noPodsLeft(w1, ns, 'train');

        const swept = await post(sweep, tick());
        expect(swept.status).toBe(503);
        expect(outcomes(swept.body.workers)).toEqual([
          ['worker-1', 'swept'],
          ['worker-2', 'unreachable'],
        ]);
      } finally {
        await restart();
      }

      const retry = await post(cascade, event);
      expect(retry.status, JSON.stringify(retry.body)).toBe(200);
      expect(outcomes(retry.body.workers)).toEqual([
        ['worker-1', 'gone'],
        ['worker-2', 'deleted'],
      ]);
      await noPodsLeft(w2, ns, 'train');

      const sweptAgain = await post(sweep, tick());
      expect(sweptAgain.status, JSON.stringify(sweptAgain.body)).toBe(200);
      await noPodsLeft(w2, ns, 'lost');
      expect(await exists(w2, ns, 'lost')).toBe(false);
    });
  });
}

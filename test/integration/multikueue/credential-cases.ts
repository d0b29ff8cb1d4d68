// Worker credentials: clients are rebuilt when the kubeconfig Secret changes, a Secret that
// is not a kubeconfig is named without being quoted, and no token ever reaches a log line or
// an answer.
import { describe, expect, it } from 'vitest';
import { jobDeleted } from '../../../functions/job-deleted.js';
import { serve } from '../functions/setup.js';
import { KUEUE_NS, secretFor, type Env } from './env.js';
import { copyJob, deleteEvent, exists, managerJob, post, QUEUED } from './fixtures.js';
import { namespaceEverywhere } from './ns.js';

const SECRET = 'worker-1-kubeconfig';

export function credentialTests(env: () => Env): void {
  describe('worker credentials', () => {
    it('a client is rebuilt when its Secret changes: a wrong token first (refused), the right one next (deleted)', async () => {
      const e = env();
      const [w1] = e.workers;
      const ns = await namespaceEverywhere(e, 'rotate');
      const job = await managerJob(e.manager, ns, 'train');
      await copyJob(w1, ns, 'train');
      const good = secretFor(w1.cluster);
      const wrong = { ...good, stringData: { kubeconfig: good.stringData.kubeconfig.replace(w1.cluster.endpoint.token, 'not-the-token-0123456789') } };
      await e.manager.core.replaceNamespacedSecret({ namespace: KUEUE_NS, name: SECRET, body: wrong });
      const agent = serve(jobDeleted, await e.runtime());
      const event = deleteEvent(e.manager, { apiVersion: 'batch/v1', kind: 'Job', ...job });
      try {
        const refused = await post(agent, event);
        expect(refused.status).toBe(500);
        expect(refused.body.workers[0]).toMatchObject({ worker: 'worker-1', outcome: 'failed' });
        expect(refused.body.workers[0].why).toContain('401');
        expect(await exists(w1, ns, 'train')).toBe(true);
      } finally {
        await e.manager.core.replaceNamespacedSecret({ namespace: KUEUE_NS, name: SECRET, body: good });
      }
      const done = await post(agent, event);
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.workers[0]).toMatchObject({ worker: 'worker-1', outcome: 'deleted' });
    });

    it('a Secret that is not a kubeconfig is reported by name, never quoted', async () => {
      const e = env();
      const token = e.workers[0].cluster.endpoint.token;
      const broken = { ...secretFor(e.workers[0].cluster), stringData: { kubeconfig: `users: [ {token: ${token}` } };
      await e.manager.core.replaceNamespacedSecret({ namespace: KUEUE_NS, name: SECRET, body: broken });
      try {
        const res = await post(
          serve(jobDeleted, await e.runtime()),
          deleteEvent(e.manager, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'x', namespace: 'default', uid: 'u', labels: QUEUED } }),
        );
        expect(res.status).toBe(500);
        expect(res.body.workers[0]).toMatchObject({ worker: 'worker-1', outcome: 'failed', why: 'worker worker-1: not a readable kubeconfig' });
        expect(JSON.stringify(res.body)).not.toContain(token);
      } finally {
        await e.manager.core.replaceNamespacedSecret({ namespace: KUEUE_NS, name: SECRET, body: secretFor(e.workers[0].cluster) });
      }
    });

    it('no log line of any case above carries a token of any cluster', () => {
      const e = env();
      const lines = e.logs.join('');
      // The cases above did log (answers, incomplete cascades): an empty capture proves nothing.
      expect(lines).toContain('cascade incomplete');
      expect(lines).toContain('worker-2');
      for (const c of [e.manager, ...e.workers]) {
        expect(lines).not.toContain(c.cluster.endpoint.token);
        expect(lines).not.toContain(Buffer.from(c.cluster.endpoint.token).toString('base64'));
      }
    });
  });
}

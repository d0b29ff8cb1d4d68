// Issue 12's dry-run test for the MultiKueue targets: jobDeleted and orphanSweep as their own
// processes from the production entry with DRY_RUN=true, given work they would really do, and
// the three clusters' audit logs (env.ts starts them with one) must show no write from them
// other than dry runs. They reach every cluster as the admin user; the test itself writes
// nothing while they run, and the controllers and kwok write as users of their own.
import { describe, expect, it } from 'vitest';
import { IDENTITIES } from '../../harness/credentials.js';
import { startServerProcess } from '../../harness/function-process.js';
import { describeWrite, type AuditMark, type Cluster } from '../../harness/index.js';
import { KUEUE_NS, type Env } from './env.js';
import { copyJob, deleteEvent, exists, managerJob, podsOf, tick, writePolicy } from './fixtures.js';
import { namespaceEverywhere } from './ns.js';

async function persistedWrites(clusters: Cluster[], marks: AuditMark[]): Promise<string[]> {
  const out: string[] = [];
  for (const [i, c] of clusters.entries()) {
    const writes = await c.audit!.settledSince(marks[i]!);
    out.push(...writes.filter((w) => w.user === IDENTITIES.admin.user && !w.dryRun).map((w) => `${c.name}: ${describeWrite(w)}`));
  }
  return out;
}

async function postTo(url: string, m: { headers: Record<string, string>; body: string }): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { method: 'POST', headers: m.headers, body: m.body });
  return { status: res.status, body: await res.text() };
}

export function dryRunProcessTests(env: () => Env): void {
  describe('DRY_RUN=true writes nothing (MultiKueue targets, production entry)', () => {
    const start = (target: string, e: Env) =>
      startServerProcess(target, {
        POLICY_FILE: writePolicy(),
        KUBECONFIG: e.manager.cluster.kubeconfigPath,
        MULTIKUEUE_CONFIG: 'mk',
        MULTIKUEUE_JOB_KINDS: 'batch/v1/Job,jobset.x-k8s.io/v1alpha2/JobSet',
        MULTIKUEUE_DISCOVERY_TTL_SECONDS: '0',
        KUEUE_NAMESPACE: KUEUE_NS,
        REQUEST_TIMEOUT_SECONDS: '5',
        DRY_RUN: 'true',
        LOG_LEVEL: 'warn',
      });

    it('jobDeleted, given a deleted manager Job with a running copy, deletes nothing in any cluster', async () => {
      const e = env();
      const ns = await namespaceEverywhere(e, 'dryproc');
      const job = await managerJob(e.manager, ns, 'train');
      await copyJob(e.workers[0], ns, 'train');
      await e.manager.batch.deleteNamespacedJob({ namespace: ns, name: 'train' });
      const fn = await start('jobDeleted', e);
      try {
        const clusters = [e.manager.cluster, ...e.workers.map((w) => w.cluster)];
        const marks = clusters.map((c) => c.audit!.mark());
        const r = await postTo(fn.url, deleteEvent(e.manager, { apiVersion: 'batch/v1', kind: 'Job', ...job }));
        const persisted = await persistedWrites(clusters, marks);
        expect(persisted, persisted.join('\n')).toEqual([]);
        expect(r.status, r.body).toBe(200);
        expect(await exists(e.workers[0], ns, 'train')).toBe(true);
        expect(await podsOf(e.workers[0], ns, 'train')).toHaveLength(2);
      } finally {
        await fn.stop();
      }
    });

    it('orphanSweep, given a copy whose original is gone, deletes nothing and writes no witness in any cluster', async () => {
      const e = env();
      const ns = await namespaceEverywhere(e, 'dryproc');
      await copyJob(e.workers[0], ns, 'lost');
      const fn = await start('orphanSweep', e);
      try {
        const clusters = [e.manager.cluster, ...e.workers.map((w) => w.cluster)];
        const marks = clusters.map((c) => c.audit!.mark());
        const r = await postTo(fn.url, tick());
        const persisted = await persistedWrites(clusters, marks);
        expect(persisted, persisted.join('\n')).toEqual([]);
        expect(r.status, r.body.slice(0, 300)).toBeLessThan(300);
        expect(await exists(e.workers[0], ns, 'lost')).toBe(true);
      } finally {
        await fn.stop();
      }
    });
  });
}

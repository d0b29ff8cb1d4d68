// A MultiKueue setup needs a manager and workers that are really separate clusters: each
// with its own etcd and API server, and all of them gone without a trace after stop().
import { CoreV1Api } from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../harness/index.js';
import { isAlive, recordedPids } from '../../harness/processes.js';
import { statusOf } from './fixtures.js';

const names = ['manager', 'worker-1', 'worker-2'];
let clusters: Cluster[] = [];

beforeAll(async () => {
  const results = await Promise.allSettled(names.map((name) => startCluster({ name })));
  clusters = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.all(clusters.map((c) => c.stop()));
    throw (failed as PromiseRejectedResult).reason;
  }
});

// Only a safety net: the last test stops the clusters itself and checks the result.
afterAll(() => Promise.all(clusters.map((c) => c.stop())));

const core = (c: Cluster | undefined): CoreV1Api => {
  if (!c) throw new Error('cluster not started');
  return c.kubeConfig().makeApiClient(CoreV1Api);
};

describe('three clusters started at once', () => {
  it('each have their own API server and their own kwok node', async () => {
    expect(new Set(clusters.map((c) => c.server)).size).toBe(3);
    for (const cluster of clusters) {
      const nodes = (await core(cluster).listNode()).items.map((n) => n.metadata?.name);
      expect(nodes).toEqual([`kwok-${cluster.name}-0`]);
    }
  });

  it('do not see each other’s objects', async () => {
    const [manager, worker1, worker2] = clusters;
    await core(worker1).createNamespace({ body: { metadata: { name: 'only-in-worker-1' } } });
    expect(await statusOf(core(worker1).readNamespace({ name: 'only-in-worker-1' }))).toBe(200);
    expect(await statusOf(core(worker2).readNamespace({ name: 'only-in-worker-1' }))).toBe(404);
    expect(await statusOf(core(manager).readNamespace({ name: 'only-in-worker-1' }))).toBe(404);
  });

  it('stop leaving no process and no state directory behind', async () => {
    const pids = clusters.flatMap((c) => recordedPids(c.dir));
    expect(pids.length).toBe(3 * 5);
    await Promise.all(clusters.map((c) => c.stop()));
    expect(pids.filter(isAlive)).toEqual([]);
    const dirs = clusters.map((c) => c.dir);
    expect(dirs.filter(existsSync)).toEqual([]);
    // The watchdogs and anything else started for these clusters mention their directory.
    const processes = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n');
    expect(processes.filter((line) => dirs.some((dir) => line.includes(dir)))).toEqual([]);
    clusters = [];
  });
});

import { describe, expect, it } from 'vitest';
import { Notifier } from '../../notify/notifier.js';
import type { KubeClients } from '../../kube/clients.js';
import { countRequestSent } from '../../kube/request-tally.js';
import { ClusterWriter, type WriterClients } from '../../kube/writer.js';
import { BATCH_JOB } from '../core/kinds.js';
import { ORIGIN_LABEL } from '../core/labels.js';
import { cascadeDelete } from './cascade.js';
import { CASCADE_OUTSIDE_BUDGETS } from './outside-budgets.js';
import type { Worker } from './workers.js';

// A cascade's `requests`: what its own tally saw, not a hand count. Each fake call counts itself
// as the client middleware would (clients.ts); the cascades of one event run side by side, one
// per worker, and each must report only its own worker's requests.

const apiError = (code: number, reason: string) => Object.assign(new Error(reason), { code, body: JSON.stringify({ reason, message: reason }) });
const tick = () => new Promise((r) => setImmediate(r));

/** A worker whose copy answers `gets` in turn, and whose deletes answer `deletes` in turn ('ok' or an HTTP status). */
function worker(name: string, gets: (object | number)[], deletes: ('ok' | number)[]): { worker: Worker; writer: ClusterWriter; calls: string[] } {
  const calls: string[] = [];
  const custom = {
    getNamespacedCustomObject: async () => {
      countRequestSent();
      calls.push('get');
      await tick();
      const g = gets.shift();
      if (typeof g === 'number') throw apiError(g, 'NotFound');
      return g;
    },
    deleteNamespacedCustomObject: async () => {
      countRequestSent();
      calls.push('delete');
      await tick();
      const d = deletes.shift();
      if (typeof d === 'number') throw apiError(d, 'Conflict');
      return {};
    },
  };
  const api = { custom } as unknown as KubeClients;
  const writer = new ClusterWriter({ core: {}, events: {}, custom, podWrites: {} } as unknown as WriterClients, {
    dryRun: false,
    recordEvents: false,
    protectedNamespaces: [],
  });
  return { worker: { name, api }, writer, calls };
}

const copy = (resourceVersion: string) => ({
  metadata: { name: 'train', namespace: 'ml', uid: 'u1', resourceVersion, labels: { [ORIGIN_LABEL]: 'multikueue' } },
});
const opts = { origin: 'multikueue', propagation: 'Background' as const, notifier: Notifier.off() };
const ref = { namespace: 'ml', name: 'train' };

describe('cascadeDelete counts the requests it sent', () => {
  it('each cascade of one event reports its own worker’s requests, a conflict’s second look included', async () => {
    const changing = worker('worker-1', [copy('1'), copy('2')], [409, 'ok']);
    const absent = worker('worker-2', [404], []);
    const [a, b] = await Promise.all([
      cascadeDelete(changing.worker, changing.writer, BATCH_JOB, ref, opts),
      cascadeDelete(absent.worker, absent.writer, BATCH_JOB, ref, opts),
    ]);
    expect(changing.calls).toEqual(['get', 'delete', 'get', 'delete']);
    expect(a).toMatchObject({ worker: 'worker-1', outcome: 'deleted', requests: 4 });
    expect(absent.calls).toEqual(['get']);
    expect(b).toMatchObject({ worker: 'worker-2', outcome: 'gone', requests: 1 });
  });

  it('a copy deleted outside the budgets says so, with its unlimited ticket’s reason', async () => {
    const one = worker('worker-1', [copy('1')], ['ok']);
    const r = await cascadeDelete(one.worker, one.writer, BATCH_JOB, ref, opts);
    expect(r.outcome).toBe('deleted');
    expect(r.why).toContain('propagation Background');
    expect(r.why).toContain(CASCADE_OUTSIDE_BUDGETS);
  });

  it('a worker without clients sends nothing and says so', async () => {
    const r = await cascadeDelete({ name: 'worker-3', error: { message: 'no credentials', transient: false } }, undefined, BATCH_JOB, ref, opts);
    expect(r).toMatchObject({ outcome: 'failed', requests: 0 });
  });
});

import { once } from 'node:events';
import { createServer } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { leaseClient } from './lease.js';

// A server that accepts connections and never answers: what a hung API server looks like.
const silent = createServer(() => {});
afterAll(() => void silent.close());

describe('the Lease client', () => {
  it('gives up on a request the API server never answers within its timeout (a leader must notice before its Lease expires)', async () => {
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${(silent.address() as { port: number }).port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const lease = leaseClient(kc, { namespace: 'kube-tidy', name: 'kube-tidy-standalone' }, { timeoutMs: 300 });
    const started = Date.now();
    await expect(lease.read()).rejects.toThrow();
    const update = await lease.update({ holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: null, renewTime: null, leaseTransitions: 0 }, '1');
    expect(update.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 10_000);
});

import { describe, expect, it } from 'vitest';
import { DiscoveryCache } from './discovery-cache.js';
import { readTtlOne } from './ttl-read.js';
import type { ObjectsReader } from './read.js';

describe('DiscoveryCache', () => {
  it('keeps an answer for its time, then asks again', () => {
    let now = 0;
    const c = new DiscoveryCache(() => now, 1000);
    c.set('v1', Promise.resolve({ resources: [] }));
    now = 999;
    expect(c.has('v1')).toBe(true);
    now = 1000;
    expect(c.has('v1')).toBe(false);
    expect(c.get('v1')).toBeUndefined();
  });

  it('drops a failed answer at once', async () => {
    const c = new DiscoveryCache(() => 0);
    const failed = Promise.resolve(new Error('503'));
    c.set('apps/v1', failed);
    await failed;
    await Promise.resolve();
    expect(c.has('apps/v1')).toBe(false);
  });

  it("spares a ttl kind's second event its discovery request", async () => {
    let discovered = 0;
    const reader = {
      objectReads: {
        discover: async () => {
          discovered++;
          return { resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['get', 'list', 'delete'] }] };
        },
        get: async () => ({ metadata: { name: 'c', namespace: 'n', uid: 'u', resourceVersion: '1' } }),
        list: async () => ({ items: [] }),
      },
    } as unknown as ObjectsReader;
    const cache = new DiscoveryCache(() => 0);
    const one = { gvk: { group: '', version: 'v1', kind: 'ConfigMap' }, namespace: 'n', name: 'c' };
    await readTtlOne(reader, one, cache);
    const read = await readTtlOne(reader, one, cache);
    expect(read.objects.map((o) => o.name)).toEqual(['c']);
    expect(discovered).toBe(1);
  });
});

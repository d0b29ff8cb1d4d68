// An event's whole pod is taken as a trusted source's read only when a write can be tied to it:
// its name, namespace, uid and resourceVersion (docs/safety.md "When the event is the read": a
// copy without a uid or resourceVersion is read first).
import { describe, expect, it } from 'vitest';
import type { Pod } from '../model/objects.js';
import { watchedPod } from './from-client.js';

const copy = (drop?: 'name' | 'namespace' | 'uid' | 'resourceVersion'): Pod => {
  const metadata: Record<string, string> = { name: 'a', namespace: 'ml', uid: 'u1', resourceVersion: '7' };
  if (drop) delete metadata[drop];
  return { apiVersion: 'v1', kind: 'Pod', metadata, status: { phase: 'Failed' } } as Pod;
};

describe('watchedPod', () => {
  it('takes a copy with its name, namespace, uid and resourceVersion as it is', () => {
    const pod = copy();
    expect(watchedPod(pod)).toBe(pod);
  });

  it.each(['name', 'namespace', 'uid', 'resourceVersion'] as const)('a copy without its %s has nothing to tie a write to: none', (drop) => {
    expect(watchedPod(copy(drop))).toBeUndefined();
  });
});

// How often the pass and the responder read and decide again when every write meets a newer
// object (409), and what they answer then: pinned here, since they go through the edge's
// retryOnConflict. (Every other path: test/integration/evacuation.)
import { ApiException, type V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../core/annotations.js';
import type { Eviction } from '../core/eviction-request.js';
import { KUBEVIRT_RESPONDER, RESPONDER_DEFAULTS } from '../core/responder.js';
import { readEvacuationConfig } from '../config.js';
import type { EvacuationDeps } from './deps.js';
import { evacuate } from './evacuate.js';
import { respondTo } from './responder.js';
import { Notifier } from '../../notify/notifier.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const notFound = () => new ApiException(404, 'Not Found', JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound' }), {});
const pod: V1Pod = {
  metadata: { name: 'p', namespace: 'ns', uid: 'pod-uid', resourceVersion: '1', annotations: { [ANNOTATIONS.request]: 'ops' } },
  spec: { nodeName: 'n1', containers: [] },
  status: { phase: 'Running' },
};
const eviction: Eviction = {
  metadata: { name: 'e', namespace: 'ns', uid: 'ev-uid', resourceVersion: '7' },
  spec: { target: { pod: { name: 'p', uid: 'pod-uid' } } },
  status: {
    targetResponders: [{ name: KUBEVIRT_RESPONDER, priority: 10000, state: 'Active' }],
    responders: [{ name: KUBEVIRT_RESPONDER, startTime: new Date(NOW - 120_000).toISOString(), heartbeatTime: new Date(NOW - 60_000).toISOString() }],
  },
};

/** Every conditional write meets 409; `evictionReads` answers each re-read of the Eviction (undefined: gone). */
function deps(o: { evictionReads?: (n: number) => Eviction | undefined; podGone?: boolean } = {}) {
  const calls = { podReads: 0, evictionReads: 0, annotations: 0, statusWrites: 0 };
  const d = {
    core: {
      readNamespacedPod: async () => {
        calls.podReads++;
        if (o.podGone) throw notFound();
        return structuredClone(pod);
      },
    },
    custom: {
      getNamespacedCustomObject: async ({ plural }: { plural: string }) => {
        if (plural !== 'evictions') return { status: { phase: 'Succeeded' } }; // the responder's migration
        const e = o.evictionReads?.(++calls.evictionReads);
        if (!e) throw notFound();
        return structuredClone(e);
      },
    },
    writer: {
      dryRun: false,
      options: { protectedNamespaces: [] },
      annotatePod: async () => (calls.annotations++, { outcome: 'conflict' }),
      patchObject: async () => (calls.statusWrites++, 'conflict'),
    },
    slotStore: { acquire: async () => ({ ok: true, held: false }) },
    config: readEvacuationConfig({ EVACUATION_NAMESPACE: 'kube-tidy' }),
    now: () => NOW,
    log: { debug() {}, warn() {} },
    notifier: Notifier.off(),
  } as unknown as EvacuationDeps;
  return { d, calls };
}

describe('the pass, when every write on the pod meets a newer one', () => {
  it('decides 6 times, then answers waiting: contended', async () => {
    const { d, calls } = deps();
    expect(await evacuate(d, { namespace: 'ns', name: 'p' })).toEqual({
      outcome: 'waiting',
      pod: 'ns/p',
      why: 'contended: another instance keeps changing the pod',
    });
    expect(calls).toMatchObject({ podReads: 6, annotations: 6 });
  });
});

describe('the responder, when every status write meets a newer Eviction', () => {
  it('decides 4 times, reads again after each, then answers contended', async () => {
    const { d, calls } = deps({ podGone: true, evictionReads: () => eviction });
    expect(await respondTo(d, eviction, RESPONDER_DEFAULTS)).toEqual({ eviction: 'ns/e', step: 'none', why: 'contended: the Eviction keeps changing' });
    expect(calls).toMatchObject({ statusWrites: 4, evictionReads: 4 });
  });

  it('answers gone when the read after the last round finds none', async () => {
    const { d, calls } = deps({ podGone: true, evictionReads: (n) => (n < 4 ? eviction : undefined) });
    expect(await respondTo(d, eviction, RESPONDER_DEFAULTS)).toEqual({ eviction: 'ns/e', step: 'none', why: 'the Eviction is gone' });
    expect(calls).toMatchObject({ statusWrites: 4, evictionReads: 4 });
  });

  it('answers gone as soon as a read finds none', async () => {
    const { d, calls } = deps({ podGone: true, evictionReads: () => undefined });
    expect(await respondTo(d, eviction, RESPONDER_DEFAULTS)).toEqual({ eviction: 'ns/e', step: 'none', why: 'the Eviction is gone' });
    expect(calls).toMatchObject({ statusWrites: 1, evictionReads: 1 });
  });
});

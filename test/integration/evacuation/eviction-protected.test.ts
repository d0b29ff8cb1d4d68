import { CloudEvent } from 'cloudevents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpMessage } from '../../../shared/cloudevents/index.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { startEvictionRequestStandIn, type EvictionRequestStandIn } from './eviction-request-standin.js';
import { POD_UID_LABEL, requesterName } from '../../../shared/evacuation/core/eviction-request.js';
import { pingRequest } from '../functions/setup.js';
import { createVm, custom, installKubevirtCrds, migrations, serveEvacuation } from './fixtures.js';

// An Eviction (lifecycle.k8s.io, KEP-4563) in a namespace kube-tidy protects, listing
// kube-tidy.dev/kubevirt as its Active responder: whoever can ask for one must not turn every
// evacuation tick into a 500 (the one writer refuses every write there). The responder leaves
// it alone, as the pod path does for the same protection, and says why. The Eviction is made
// by the stand-in for the evictionrequest controller from an EvictionRequest of another
// requester; the API server is the real v1.37.2 one.

const ns = testNamespace('evac-er-protected');
const L = { group: 'lifecycle.k8s.io', version: 'v1alpha1' } as const;
const AUTO = { EVACUATION_EVICTION_REQUESTS: 'auto', EVACUATION_HEARTBEAT_SECONDS: '1', EVACUATION_MIN_HEARTBEAT_SECONDS: '0.5' };
type Ev = {
  metadata: { uid: string; name: string };
  spec: { target: { pod: { uid: string } } };
  status?: { targetResponders?: { name: string; state: string }[]; responders?: { name: string; heartbeatTime?: string }[] };
};
const evictionOf = async (uid: string) =>
  ((await custom().listNamespacedCustomObject({ ...L, plural: 'evictions', namespace: ns.name })) as { items: Ev[] }).items.find(
    (e) => e.spec.target.pod.uid === uid,
  );
let standIn: EvictionRequestStandIn;

beforeAll(async () => {
  await installKubevirtCrds();
  standIn = startEvictionRequestStandIn(sharedCluster(), ns.name);
});
afterAll(async () => {
  await standIn?.stop();
  expect(standIn.errors).toEqual([]);
});

describe('an Eviction in a protected namespace that lists kube-tidy.dev/kubevirt as Active', () => {
  it('ticks and its events answer 200: the responder skips it, nothing is written there', async () => {
    // Another requester asks to evict a pod that declares kube-tidy as its responder.
    const pod = await createVm(ns.name, 'guarded', { responders: [{ name: 'kube-tidy.dev/kubevirt', priority: 10000 }], behaviour: 'hold' });
    const uid = pod.metadata!.uid!;
    await custom().createNamespacedCustomObject({
      ...L,
      plural: 'evictionrequests',
      namespace: ns.name,
      body: {
        apiVersion: 'lifecycle.k8s.io/v1alpha1',
        kind: 'EvictionRequest',
        metadata: { name: `acme-${uid}` },
        spec: { target: { pod: { name: pod.metadata!.name!, uid } }, requester: 'acme.io/ops', intent: 'Eviction' },
      },
    });
    const ev = await waitFor('the Eviction with kube-tidy Active', async () => {
      const e = await evictionOf(uid);
      return e?.status?.targetResponders?.find((t) => t.name === 'kube-tidy.dev/kubevirt')?.state === 'Active' ? e : undefined;
    });
    standIn.pause(); // nothing else changes it from here on

    // This instance protects the namespace (and only looks there).
    const fn = await serveEvacuation(ns.name, { ...AUTO, PROTECTED_NAMESPACES: `kube-system,${ns.name}` });
    for (let i = 0; i < 3; i++) {
      const res = await fn.raw(pingRequest());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        outcome: 'polled',
        responded: [{ eviction: `${ns.name}/${ev.metadata.name}`, step: 'none', why: `namespace ${ns.name} is protected` }],
      });
    }
    const event = new CloudEvent({
      type: 'dev.knative.apiserver.resource.update',
      source: 'https://127.0.0.1',
      subject: `/apis/lifecycle.k8s.io/v1alpha1/namespaces/${ns.name}/evictions/${ev.metadata.name}`,
      data: { apiVersion: 'lifecycle.k8s.io/v1alpha1', kind: 'Eviction', metadata: { name: ev.metadata.name, namespace: ns.name, uid: ev.metadata.uid } },
    });
    const res = await fn.raw(httpMessage(event));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'nothing-to-do', why: `namespace ${ns.name} is protected` });

    // Nothing written: no migration, no heartbeat from kube-tidy, the pod still there.
    expect(await migrations(ns.name)).toEqual([]);
    const after = await evictionOf(uid);
    expect(after?.status?.responders?.find((r) => r.name === 'kube-tidy.dev/kubevirt')?.heartbeatTime).toBeUndefined();
    expect(after?.status?.targetResponders?.find((t) => t.name === 'kube-tidy.dev/kubevirt')?.state).toBe('Active');
    standIn.resume();
  });
});

describe('a kube-tidy EvictionRequest left behind in a namespace protected since', () => {
  it('ticks answer 200 and leave it alone: nothing is collected or written there', async () => {
    // Asked for while the namespace was not protected; its pod is gone since, no Eviction: in
    // an unprotected namespace the next tick would delete it (requestLeftBehind).
    const uid = '0a0b0c0d-0000-4000-8000-000000000001';
    const name = `kube-tidy-evacuation-${uid}-1`;
    await custom().createNamespacedCustomObject({
      ...L,
      plural: 'evictionrequests',
      namespace: ns.name,
      body: {
        apiVersion: 'lifecycle.k8s.io/v1alpha1',
        kind: 'EvictionRequest',
        metadata: { name, labels: { [POD_UID_LABEL]: uid } },
        spec: { target: { pod: { name: 'long-gone', uid } }, requester: requesterName('evacuation'), intent: 'Eviction' },
      },
    });
    const fn = await serveEvacuation(ns.name, { ...AUTO, PROTECTED_NAMESPACES: `kube-system,${ns.name}` });
    for (let i = 0; i < 2; i++) {
      const res = await fn.raw(pingRequest());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ outcome: 'polled', summary: { requestsCollected: 0 } });
    }
    expect(
      await custom()
        .getNamespacedCustomObject({ ...L, plural: 'evictionrequests', namespace: ns.name, name })
        .then(
          () => 'there',
          () => 'gone',
        ),
    ).toBe('there');
    // Unprotected again, the same tick collects it: the request was the kind a tick deletes.
    const open = await serveEvacuation(ns.name, AUTO);
    expect((await open.tick()).summary).toMatchObject({ requestsCollected: 1 });
  });
});

import { CoreV1Api } from '@kubernetes/client-node';
import { CloudEvent } from 'cloudevents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpMessage } from '../../../shared/cloudevents/index.js';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { startCluster, type Cluster } from '../../harness/index.js';
import { runPod } from '../functions/setup.js';
import { serveEvacuation } from './fixtures.js';

// Kubernetes v1.37.2 as it runs by default: the EvictionRequestAPI gate off, lifecycle.k8s.io
// not served. Evacuation must keep its direct path (the Eviction API) with the default
// EVACUATION_EVICTION_REQUESTS=auto. Its own cluster: the shared one serves the group.

let cluster: Cluster;
const ns = 'evac-nogroup';

beforeAll(async () => {
  cluster = await startCluster({ name: 'nogroup', evictionRequestApi: false });
  await cluster
    .kubeConfig()
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: ns } } });
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

describe('evacuation where lifecycle.k8s.io is not served', () => {
  it('says the EvictionRequest API (lifecycle.k8s.io) is not installed, and refuses its events with 422', async () => {
    const fn = await serveEvacuation(ns, { KUBECONFIG: cluster.kubeconfigPath, EVACUATION_EVICTION_REQUESTS: 'auto' });
    expect((await fn.tick()).evictionRequests).toBe('lifecycle.k8s.io not installed');
    const event = new CloudEvent({
      type: 'dev.knative.apiserver.resource.add',
      source: 'https://127.0.0.1',
      subject: `/apis/lifecycle.k8s.io/v1alpha1/namespaces/${ns}/evictionrequests/x`,
      data: { apiVersion: 'lifecycle.k8s.io/v1alpha1', kind: 'EvictionRequest', metadata: { name: 'x', namespace: ns, uid: 'u' } },
    });
    const res = await fn.raw(httpMessage(event));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/EvictionRequest/);
  });

  it('refuses Eviction events with 422: there is no Eviction to respond to', async () => {
    const fn = await serveEvacuation(ns, { KUBECONFIG: cluster.kubeconfigPath, EVACUATION_EVICTION_REQUESTS: 'auto' });
    const event = new CloudEvent({
      type: 'dev.knative.apiserver.resource.update',
      source: 'https://127.0.0.1',
      subject: `/apis/lifecycle.k8s.io/v1alpha1/namespaces/${ns}/evictions/x`,
      data: { apiVersion: 'lifecycle.k8s.io/v1alpha1', kind: 'Eviction', metadata: { name: 'x', namespace: ns, uid: 'u' } },
    });
    const res = await fn.raw(httpMessage(event));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/Eviction \(lifecycle.k8s.io\) events are taken only where the group is served/);
  });

  it('a requested pod is evicted through the Eviction API, as before: no EvictionRequest', async () => {
    const fn = await serveEvacuation(ns, { KUBECONFIG: cluster.kubeconfigPath, EVACUATION_EVICTION_REQUESTS: 'auto' });
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    const pod = await runPod(core, ns, 'plain', { annotations: { [ANNOTATIONS.request]: 'ops' } });
    expect(await fn.event(pod)).toMatchObject({ outcome: 'started', why: 'evicted: the pod is terminating' });
  });
});

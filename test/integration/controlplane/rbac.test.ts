// RBAC is really on: a ServiceAccount with a narrow Role gets exactly what the Role grants.
// The functions will run with such accounts, so their 403s must be the real ones.
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { pod, statusOf } from './fixtures.js';

const ns = testNamespace('rbac');
const admin = sharedCluster().kubeConfig();
const adminCore = admin.makeApiClient(CoreV1Api);
let reader: CoreV1Api;

beforeAll(async () => {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const namespace = ns.name;
  await adminCore.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'reader' } } });
  await adminCore.createNamespacedPod({ namespace, body: pod('victim') });
  await rbac.createNamespacedRole({
    namespace,
    body: { metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }] },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: 'reader-reads-pods' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace }],
    },
  });
  const request = await adminCore.createNamespacedServiceAccountToken({
    name: 'reader',
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 600 } },
  });
  const cluster = admin.getCurrentCluster();
  if (!cluster || !request.status?.token) throw new Error('no cluster or token');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: 'reader', token: request.status.token }],
    contexts: [{ name: 'reader', cluster: cluster.name, user: 'reader' }],
    currentContext: 'reader',
  });
  reader = kc.makeApiClient(CoreV1Api);
  // The RBAC authorizer learns about new bindings through an informer: wait for it.
  await waitFor('the RoleBinding to take effect', async () => (await statusOf(reader.listNamespacedPod({ namespace }))) === 200);
});

describe('a ServiceAccount bound to a pod-reader Role', () => {
  const eviction = () => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'victim', namespace: ns.name } });
  for (const row of [
    { sentence: 'may list pods in its namespace', status: 200, call: () => reader.listNamespacedPod({ namespace: ns.name }) },
    { sentence: 'may read a pod in its namespace', status: 200, call: () => reader.readNamespacedPod({ name: 'victim', namespace: ns.name }) },
    { sentence: 'is refused deleting a pod', status: 403, call: () => reader.deleteNamespacedPod({ name: 'victim', namespace: ns.name }) },
    {
      sentence: 'is refused evicting a pod',
      status: 403,
      call: () => reader.createNamespacedPodEviction({ name: 'victim', namespace: ns.name, body: eviction() }),
    },
    { sentence: 'is refused listing secrets', status: 403, call: () => reader.listNamespacedSecret({ namespace: ns.name }) },
    { sentence: 'is refused listing pods in another namespace', status: 403, call: () => reader.listNamespacedPod({ namespace: 'default' }) },
  ]) {
    it(row.sentence, async () => {
      const { status, call } = row;
      expect(await statusOf(call())).toBe(status);
    });
  }

  it('leaves the pod it was refused to delete in place', async () => {
    const victim = await adminCore.readNamespacedPod({ name: 'victim', namespace: ns.name });
    expect(victim.metadata?.deletionTimestamp).toBeUndefined();
  });
});

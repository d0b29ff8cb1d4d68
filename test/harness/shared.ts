// What an integration test file needs from the shared cluster: a KubeConfig for it and a
// namespace of its own that is created before and deleted after the file's tests.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { AuditLog } from './audit.js';
import { waitFor } from './wait.js';

export interface SharedCluster {
  kubeconfigPath: string;
  kubeConfig(): KubeConfig;
}

export function sharedCluster(): SharedCluster {
  const kubeconfigPath = inject('kubeconfig');
  return {
    kubeconfigPath,
    kubeConfig() {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      return kc;
    },
  };
}

/** The shared cluster's audit log, with the admin's credentials for barriers. */
export function sharedAudit(): AuditLog {
  const kc = sharedCluster().kubeConfig();
  const cluster = kc.getCurrentCluster()!;
  const ca = Buffer.from(cluster.caData ?? '', 'base64').toString('utf8');
  return new AuditLog(inject('auditLog'), { server: cluster.server, ca, token: kc.getCurrentUser()!.token ?? '' });
}

export interface TestNamespace {
  /** Set once beforeAll has run; `<prefix>-<random>`. */
  readonly name: string;
}

/** Call at the top level of a test file: registers beforeAll/afterAll hooks. */
export function testNamespace(prefix: string): TestNamespace {
  const handle = { name: '' };
  let core: CoreV1Api | undefined;
  beforeAll(async () => {
    core = sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
    const api = core;
    const name = `${prefix}-${randomBytes(3).toString('hex')}`;
    await api.createNamespace({ body: { metadata: { name, labels: { 'kube-tidy.dev/test': prefix } } } });
    // The ServiceAccount admission plugin refuses pods until the namespace's default SA exists.
    await waitFor(`default ServiceAccount in ${name}`, () => api.readNamespacedServiceAccount({ name: 'default', namespace: name }).then(() => true));
    // And the control plane's other write into every namespace, so that it is over before a
    // test's audit mark: a test reading "what was written here" sees the program's writes only.
    await waitFor(`kube-root-ca.crt in ${name}`, () => api.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: name }).then(() => true));
    handle.name = name;
  });
  afterAll(async () => {
    if (core && handle.name) await core.deleteNamespace({ name: handle.name });
  });
  return handle;
}

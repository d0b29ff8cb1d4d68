// Error classification against real failures: RBAC refusals from the API server are
// permanent (a retry cannot help), an unreachable or silent server is transient (the bridge
// should retry). Messages never carry the credentials.
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import {
  deletePod,
  evictPod,
  getPod,
  KubeError,
  kubeClients,
  KubeRequestError,
  listPods,
  TransientKubeError,
  type KubeErrorKind,
} from '../../../shared/kube/index.js';
import { makePod, type Made } from './fixtures.js';

const ns = testNamespace('kube-errors');
const admin = sharedCluster().kubeConfig();
const adminCore = admin.makeApiClient(CoreV1Api);
const token = { value: '' };
let victim: Made;
let silent: Server;
const sockets: Socket[] = [];
const ports = { closed: 0, silent: 0 };

/** A kubeconfig for the same cluster (or another server), as a given bearer token. */
function kubeConfigFor(server: string | undefined, bearer: string): KubeConfig {
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('no current cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, server: server ?? cluster.server }],
    users: [{ name: 'u', token: bearer }],
    contexts: [{ name: 'c', cluster: cluster.name, user: 'u' }],
    currentContext: 'c',
  });
  return kc;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  const namespace = ns.name;
  victim = await makePod(adminCore, namespace, 'victim');
  // A ServiceAccount that may read pods here and nothing else: the functions' least privilege, minus the writes.
  await adminCore.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'reader' } } });
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace,
    body: { metadata: { name: 'read-pods' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: 'reader-reads-pods' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-pods' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace }],
    },
  });
  const request = await adminCore.createNamespacedServiceAccountToken({ name: 'reader', namespace, body: { spec: { audiences: [], expirationSeconds: 600 } } });
  token.value = request.status?.token ?? '';
  // The authorizer learns of the binding through an informer.
  const reader = kubeClients(kubeConfigFor(undefined, token.value)).core;
  await waitFor('the RoleBinding to take effect', async () => (await getPod(reader, { namespace, name: 'victim' })) !== undefined);

  const closed = createServer();
  ports.closed = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
  // Accepts connections and never answers: the half-dead API server a timeout is for.
  silent = createServer((socket) => sockets.push(socket));
  ports.silent = await listen(silent);
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
});

type Client = 'reader' | 'closed port' | 'silent server';
function core(client: Client): CoreV1Api {
  if (client === 'reader') return kubeClients(kubeConfigFor(undefined, token.value)).core;
  const port = client === 'closed port' ? ports.closed : ports.silent;
  return kubeClients(kubeConfigFor(`https://127.0.0.1:${port}`, token.value), { timeoutMs: 500 }).core;
}

const target = () => ({ namespace: ns.name, ...victim });
const drain = async (c: CoreV1Api, namespace: string) => {
  for await (const _ of listPods(c, { namespace })) void _;
};

describe('errors from the cluster', () => {
  for (const row of [
    {
      sentence: 'a delete refused by RBAC is a permanent forbidden error',
      client: 'reader',
      call: (c: CoreV1Api) => deletePod(c, target()),
      type: KubeRequestError,
      kind: 'forbidden',
      status: 403,
      pattern: /403 Forbidden .*forbidden/,
    },
    {
      sentence: 'an eviction refused by RBAC is a permanent forbidden error, not blocked',
      client: 'reader',
      call: (c: CoreV1Api) => evictPod(c, target()),
      type: KubeRequestError,
      kind: 'forbidden',
      status: 403,
      pattern: /403 Forbidden .*forbidden/,
    },
    {
      sentence: 'a list in a namespace the account may not read is a permanent forbidden error',
      client: 'reader',
      call: (c: CoreV1Api) => drain(c, 'default'),
      type: KubeRequestError,
      kind: 'forbidden',
      status: 403,
      pattern: /403 Forbidden .*forbidden/,
    },
    {
      sentence: 'a delete against a closed port is transient',
      client: 'closed port',
      call: (c: CoreV1Api) => deletePod(c, target()),
      type: TransientKubeError,
      kind: 'transient',
      status: undefined,
      pattern: /ECONNREFUSED/,
    },
    {
      sentence: 'an eviction against a closed port is transient',
      client: 'closed port',
      call: (c: CoreV1Api) => evictPod(c, target()),
      type: TransientKubeError,
      kind: 'transient',
      status: undefined,
      pattern: /ECONNREFUSED/,
    },
    {
      sentence: 'a get against a closed port is transient',
      client: 'closed port',
      call: (c: CoreV1Api) => getPod(c, target()),
      type: TransientKubeError,
      kind: 'transient',
      status: undefined,
      pattern: /ECONNREFUSED/,
    },
    {
      sentence: 'a list against a server that never answers times out as transient',
      client: 'silent server',
      call: (c: CoreV1Api) => drain(c, ns.name),
      type: TransientKubeError,
      kind: 'transient',
      status: undefined,
      pattern: /timed out/,
    },
  ] as {
    sentence: string;
    client: Client;
    call: (c: CoreV1Api) => Promise<unknown>;
    type: typeof KubeError;
    kind: KubeErrorKind;
    status?: number;
    pattern: RegExp;
  }[])
    it(row.sentence, async () => {
      const { client, call, type, kind, status, pattern } = row;
      const error: unknown = await call(core(client)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(type);
      const kubeError = error as KubeError;
      expect(kubeError.kind).toBe(kind);
      expect(kubeError.status).toBe(status);
      expect(kubeError.message).toMatch(pattern);
      expect(kubeError.message).not.toContain(token.value);
      expect(JSON.stringify(kubeError.failure)).not.toContain(token.value);
    });

  it('leaves the pod alone after the refused writes', async () => {
    const pod = await adminCore.readNamespacedPod({ name: 'victim', namespace: ns.name });
    expect(pod.metadata?.uid).toBe(victim.uid);
    expect(pod.metadata?.deletionTimestamp).toBeUndefined();
  });
});

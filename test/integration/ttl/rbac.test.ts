// RBAC for TTL on any kind, on the real control plane: kube-tidy reading and deleting as a
// ServiceAccount bound to the ClusterRole `kube-tidy rbac --policy` prints for a policy that
// names ConfigMaps only. A rule naming ConfigMaps and Secrets then deletes the expired ConfigMap
// (the printed role is enough to list and delete it) and says once that Secrets may not be
// listed, going on with the other kind; the expired Secret stays.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api, type V1ClusterRole } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ttlClusterRole } from '../../../shared/hosts/cli/rbac.js';
import { kubeClients, type KubeClients } from '../../../shared/kube/clients.js';
import { ClusterWriter } from '../../../shared/kube/writer.js';
import { runObjectsPass } from '../../../shared/objects/index.js';
import { TtlRuleSchema } from '../../../shared/policy/ttl-schema.js';
import { sharedCluster } from '../../harness/index.js';
import { tokenKubeconfig } from '../../harness/credentials.js';
import { objectsSuite, type TestHandle } from '../objects/handle.js';

const { ns, handle } = objectsSuite('ttl-rbac');
const kc = () => sharedCluster().kubeConfig();
const core = () => kc().makeApiClient(CoreV1Api);
const rbac = () => kc().makeApiClient(RbacAuthorizationV1Api);
const EXPIRED = { 'janitor/expires': '2020-01-01' };

let h: TestHandle;
let account: KubeClients;
const roleName = () => `${ns.name}-ttl`;

beforeAll(async () => {
  h = handle({
    policy: () => ({
      kubeTidy: {
        ttl: [
          {
            name: 'expired',
            mode: 'delete',
            kinds: [
              { version: 'v1', kind: 'ConfigMap' },
              { version: 'v1', kind: 'Secret' },
            ],
            namespaces: { include: [ns.name] },
          },
        ],
      },
    }),
  });
  // What an operator granted: the role `kube-tidy rbac` prints for a policy naming ConfigMaps alone.
  const printed = parse(ttlClusterRole([TtlRuleSchema.parse({ name: 'cm', kinds: [{ version: 'v1', kind: 'ConfigMap' }] })], roleName())) as V1ClusterRole;
  await rbac().createClusterRole({ body: printed });
  await core().createNamespacedServiceAccount({ namespace: ns.name, body: { metadata: { name: 'kube-tidy' } } });
  await rbac().createClusterRoleBinding({
    body: {
      metadata: { name: roleName() },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName() },
      subjects: [{ kind: 'ServiceAccount', name: 'kube-tidy', namespace: ns.name }],
    },
  });
  const token = await core().createNamespacedServiceAccountToken({
    name: 'kube-tidy',
    namespace: ns.name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const file = tokenKubeconfig(kc(), join(mkdtempSync(join(tmpdir(), 'kube-tidy-ttl-rbac-')), 'account.kubeconfig'), 'kube-tidy', token.status!.token);
  const accountKc = new KubeConfig();
  accountKc.loadFromFile(file);
  account = kubeClients(accountKc);
  await core().createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: 'old-config', annotations: EXPIRED } } });
  await core().createNamespacedSecret({ namespace: ns.name, body: { metadata: { name: 'old-secret', annotations: EXPIRED } } });
}, 60_000);

afterAll(async () => {
  account?.close();
  await rbac()
    .deleteClusterRoleBinding({ name: roleName() })
    .catch(() => undefined);
  await rbac()
    .deleteClusterRole({ name: roleName() })
    .catch(() => undefined);
});

describe('TTL on any kind under the printed ClusterRole', () => {
  it('deletes the kind it was granted, says once the kind it may not list, and goes on', async () => {
    const writer = new ClusterWriter(account, { dryRun: false, recordEvents: false, protectedNamespaces: [] });
    const s = await runObjectsPass({ ...h.handle, reader: account, writer: () => writer }, { origin: 'sweep', dryRun: false });
    expect(s.results.map((r) => `${r.decision.kind} ${r.decision.name}: ${r.outcome}`)).toEqual(['ConfigMap old-config: deleted']);
    expect(s.unavailable).toEqual([{ kind: 'v1/Secret', why: expect.stringContaining('kube-tidy may not list secrets (RBAC: `kube-tidy rbac --policy`') }]);
    const gone = await core()
      .readNamespacedConfigMap({ namespace: ns.name, name: 'old-config' })
      .then(
        () => false,
        () => true,
      );
    expect(gone, 'the expired ConfigMap is gone').toBe(true);
    expect((await core().readNamespacedSecret({ namespace: ns.name, name: 'old-secret' })).metadata?.name, 'the Secret it could not list stays').toBe(
      'old-secret',
    );
  }, 60_000);
});

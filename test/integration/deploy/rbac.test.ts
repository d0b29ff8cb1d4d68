// What each function's ServiceAccount may do, asked of the real API server's authorizer with
// SubjectAccessReviews after the generated RBAC is applied for real: allowed exactly what the
// function does, refused the rest. Rendered into this file's own namespaces and name prefix,
// so it runs beside other tests on the shared cluster.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthorizationV1Api, CoreV1Api, type V1ResourceAttributes } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDeclaration } from '../../../infra/declaration/declaration.js';
import { toYaml } from '../../../infra/knative/generate.js';
import { renderKnative } from '../../../infra/knative/render.js';
import { kubectl, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';

const ns = testNamespace('rbac-deploy');
const cluster = sharedCluster();
const authz = cluster.kubeConfig().makeApiClient(AuthorizationV1Api);
const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-rbac-')), 'rbac.yaml');
let kueue = '';

beforeAll(async () => {
  kueue = `${ns.name}-kueue`;
  await core.createNamespace({ body: { metadata: { name: kueue } } });
  const manifests = renderKnative(readDeclaration(), { namespace: ns.name, kueueNamespace: kueue, prefix: ns.name, image: 'x' });
  writeFileSync(file, toYaml(manifests['20-rbac.yaml']!));
  await kubectl(cluster, ['apply', '--server-side', '-f', file]);
  // The authorizer learns bindings through an informer: wait until the last one is in.
  await waitFor('the RBAC to take effect', async () => (await allowed('apiserver-source', { verb: 'watch', resource: 'pods' })) || undefined);
}, 120_000);

afterAll(async () => {
  await kubectl(cluster, ['delete', '--ignore-not-found', '-f', file]).catch(() => undefined);
  if (kueue) await core.deleteNamespace({ name: kueue });
});

async function allowed(sa: string, attrs: V1ResourceAttributes): Promise<boolean> {
  const review = await authz.createSubjectAccessReview({
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      // The groups a real token of this ServiceAccount carries, so grants to them count too.
      spec: {
        user: `system:serviceaccount:${ns.name}:${sa}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns.name}`, 'system:authenticated'],
        resourceAttributes: attrs,
      },
    },
  });
  return review.status?.allowed === true;
}

type Row = [sentence: string, attrs: (n: { own: string; kueue: string }) => V1ResourceAttributes, allowed: boolean];
const pods =
  (verb: string, namespace?: string): Row[1] =>
  (n) => ({ verb, resource: 'pods', namespace: namespace ?? n.own });
const core_ =
  (verb: string, resource: string, namespace: (n: { own: string; kueue: string }) => string | undefined, name?: string): Row[1] =>
  (n) => ({ verb, resource, namespace: namespace(n), name });
const own = (n: { own: string }) => n.own;
const inKueue = (n: { kueue: string }) => n.kueue;
const kq =
  (verb: string, resource: string, name?: string): Row[1] =>
  () => ({ verb, group: 'kueue.x-k8s.io', resource, name });

const podRights = (listAllowed: boolean, objects = false): Row[] => [
  ['may get a pod in any namespace', pods('get', 'default'), true],
  ['may delete a pod in any namespace', pods('delete', 'default'), true],
  ['may evict a pod (create pods/eviction)', (n) => ({ verb: 'create', resource: 'pods', subresource: 'eviction', namespace: n.own }), true],
  ['may record an events.k8s.io Event', () => ({ verb: 'create', group: 'events.k8s.io', resource: 'events', namespace: 'default' }), true],
  [listAllowed ? 'may list pods cluster-wide' : 'is refused listing pods', () => ({ verb: 'list', resource: 'pods' }), listAllowed],
  ['may get its policy ConfigMap by name', core_('get', 'configmaps', own, 'kube-tidy-policy'), true],
  ['may watch its policy ConfigMap by name', core_('watch', 'configmaps', own, 'kube-tidy-policy'), true],
  ['is refused another ConfigMap in its namespace', core_('get', 'configmaps', own, 'something-else'), false],
  ['is refused a ConfigMap of that name in another namespace', core_('get', 'configmaps', () => 'default', 'kube-tidy-policy'), false],
  ['is refused watching pods', () => ({ verb: 'watch', resource: 'pods' }), false],
  // The evacuation request on a running pod marked request-evict-only, instead of an eviction.
  ['may patch a pod (the request annotation of a request-evict-only pod)', pods('patch', 'default'), true],
  ['is refused creating a pod', pods('create', 'default'), false],
  ...(objects
    ? objectRights
    : [['is refused deleting a Job', () => ({ verb: 'delete', group: 'batch', resource: 'jobs', namespace: 'default' }), false] as Row]),
  ['is refused listing nodes', () => ({ verb: 'list', resource: 'nodes' }), false],
  ['is refused deleting a node', () => ({ verb: 'delete', resource: 'nodes', name: 'n' }), false],
  ['is refused secrets in its own namespace', core_('get', 'secrets', own, 'x'), false],
  ['is refused secrets in the kueue namespace', core_('get', 'secrets', inKueue, 'x'), false],
  ['is refused core/v1 Events (it writes events.k8s.io ones)', () => ({ verb: 'create', resource: 'events', namespace: 'default' }), false],
  ['is refused binding roles', () => ({ verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' }), false],
];

// Cleanup beyond pods after the pods (sweep, invoke: docs/objects.md): what the rules name deleted
// with preconditions, their context read; never a volume nor a Workload itself (its owner goes).
const objectRights: Row[] = [
  [
    "may patch an events.k8s.io Event (the objects' Event series, updated in place)",
    () => ({ verb: 'patch', group: 'events.k8s.io', resource: 'events', namespace: 'default' }),
    true,
  ],
  ['may delete a Job (kubeTidy.objects)', () => ({ verb: 'delete', group: 'batch', resource: 'jobs', namespace: 'default' }), true],
  ['may delete a claim (kubeTidy.objects)', () => ({ verb: 'delete', resource: 'persistentvolumeclaims', namespace: 'default' }), true],
  ['may list CronJobs (their history limits)', () => ({ verb: 'list', group: 'batch', resource: 'cronjobs' }), true],
  ['may list StatefulSets (their claim templates)', () => ({ verb: 'list', group: 'apps', resource: 'statefulsets' }), true],
  ['may get a volume (its reclaim policy)', () => ({ verb: 'get', resource: 'persistentvolumes', name: 'pv' }), true],
  ['is refused deleting a volume', () => ({ verb: 'delete', resource: 'persistentvolumes', name: 'pv' }), false],
  ['is refused deleting a Workload (its owner goes)', kq('delete', 'workloads', 'w'), false],
];

// Audits as OpenReports (shared/kube/reports.ts): applied whole, stale ones listed by label and deleted.
const report =
  (verb: string, name?: string): Row[1] =>
  () => ({ verb, group: 'openreports.io', resource: 'reports', namespace: 'default', ...(name ? { name } : {}) });
const reportRights: Row[] = [
  ['may create a Report (server-side apply of a new one)', report('create', 'kube-tidy-p'), true],
  ['may patch a Report (server-side apply)', report('patch', 'kube-tidy-p'), true],
  ['may list Reports in every namespace', () => ({ verb: 'list', group: 'openreports.io', resource: 'reports' }), true],
  ['may delete a Report (one no pass wrote)', report('delete', 'kube-tidy-p'), true],
  ['is refused ClusterReports', () => ({ verb: 'create', group: 'openreports.io', resource: 'clusterreports' }), false],
];

const multiKueue = (extra: Row[]): Row[] => [
  ['may list MultiKueueClusters', kq('list', 'multikueueclusters'), true],
  ['may get a MultiKueueConfig', kq('get', 'multikueueconfigs', 'c'), true],
  ['may get a Secret in the kueue namespace', core_('get', 'secrets', inKueue, 'worker-1'), true],
  ['is refused listing Secrets in the kueue namespace', core_('list', 'secrets', inKueue), false],
  ['is refused a Secret outside the kueue namespace', core_('get', 'secrets', () => 'default', 'worker-1'), false],
  ['is refused a Secret in its own namespace', core_('get', 'secrets', own, 'worker-1'), false],
  ['is refused changing a MultiKueueCluster', kq('update', 'multikueueclusters', 'c'), false],
  [
    'is refused deleting a Job in the manager (the cascade is in the workers)',
    () => ({ verb: 'delete', group: 'batch', resource: 'jobs', namespace: 'default' }),
    false,
  ],
  ['is refused deleting a pod', pods('delete', 'default'), false],
  ['is refused listing nodes', () => ({ verb: 'list', resource: 'nodes' }), false],
  ['may get its policy ConfigMap by name', core_('get', 'configmaps', own, 'kube-tidy-policy'), true],
  ...extra,
];

const table: Record<string, Row[]> = {
  'pod-terminated': podRights(false),
  sweep: [
    ...podRights(true, true),
    // Its shard plans (shared/cleanup/io/shard-plan.ts): that one ConfigMap, and creating it.
    ['may get and update its plans ConfigMap by name', core_('update', 'configmaps', own, 'kube-tidy-sweep-plans'), true],
    ['may create a ConfigMap in its own namespace (create cannot be limited by name)', core_('create', 'configmaps', own), true],
    ['is refused updating its policy ConfigMap', core_('update', 'configmaps', own, 'kube-tidy-policy'), false],
    ['is refused deleting ConfigMaps', core_('delete', 'configmaps', own, 'kube-tidy-sweep-plans'), false],
    ['is refused creating ConfigMaps in other namespaces', core_('create', 'configmaps', () => 'default'), false],
    ...reportRights,
  ],
  invoke: [...podRights(true, true), ...reportRights],
  'job-deleted': multiKueue([
    ['is refused listing Jobs', () => ({ verb: 'list', group: 'batch', resource: 'jobs' }), false],
    ['is refused listing Workloads', kq('list', 'workloads'), false],
  ]),
  'orphan-sweep': multiKueue([
    ['may list Jobs in the manager', () => ({ verb: 'list', group: 'batch', resource: 'jobs' }), true],
    ['may list Workloads in the manager', kq('list', 'workloads'), true],
    ['is refused deleting a Workload', kq('delete', 'workloads', 'w'), false],
  ]),
  defrag: [
    ['may list nodes', () => ({ verb: 'list', resource: 'nodes' }), true],
    ['may patch a node (cordon, its marks)', () => ({ verb: 'patch', resource: 'nodes', name: 'n' }), true],
    ['may list pods', () => ({ verb: 'list', resource: 'pods' }), true],
    ['may list PodDisruptionBudgets', () => ({ verb: 'list', group: 'policy', resource: 'poddisruptionbudgets' }), true],
    ['may evict a pod', (n) => ({ verb: 'create', resource: 'pods', subresource: 'eviction', namespace: n.own }), true],
    ['is refused deleting a pod', pods('delete', 'default'), false],
    ['is refused deleting a node', () => ({ verb: 'delete', resource: 'nodes', name: 'n' }), false],
    ['is refused updating node status', () => ({ verb: 'patch', resource: 'nodes', subresource: 'status', name: 'n' }), false],
    ['is refused secrets', core_('get', 'secrets', () => 'default', 'x'), false],
    ['may get its policy ConfigMap by name', core_('get', 'configmaps', own, 'kube-tidy-policy'), true],
  ],
  evacuation: [
    ['may get a pod', pods('get', 'default'), true],
    ['may list pods (poll ticks)', () => ({ verb: 'list', resource: 'pods' }), true],
    ['may patch a pod (its state annotations)', pods('patch', 'default'), true],
    ['may evict a pod', (n) => ({ verb: 'create', resource: 'pods', subresource: 'eviction', namespace: n.own }), true],
    ['may create a migration', () => ({ verb: 'create', group: 'kubevirt.io', resource: 'virtualmachineinstancemigrations', namespace: 'default' }), true],
    [
      'may delete a migration (abort)',
      () => ({ verb: 'delete', group: 'kubevirt.io', resource: 'virtualmachineinstancemigrations', namespace: 'default', name: 'm' }),
      true,
    ],
    ["may update the brakes' ledger (its slots) in its own namespace", core_('update', 'configmaps', own, 'kube-tidy-brakes'), true],
    ['is refused the ledger in other namespaces', core_('update', 'configmaps', () => 'default', 'kube-tidy-brakes'), false],
    ["may read and delete the previous release's slots (carried into the ledger)", core_('delete', 'configmaps', own, 'kube-tidy-evacuations'), true],
    ['is refused writing the old slots ConfigMap', core_('update', 'configmaps', own, 'kube-tidy-evacuations'), false],
    ['is refused other ConfigMaps of its namespace', core_('update', 'configmaps', own, 'kube-tidy-due-0'), false],
    ['is refused deleting a pod', pods('delete', 'default'), false],
    [
      'may read a VirtualMachineInstance (is KubeVirt still evacuating it?)',
      () => ({ verb: 'get', group: 'kubevirt.io', resource: 'virtualmachineinstances', namespace: 'default', name: 'v' }),
      true,
    ],
    [
      'is refused changing a VirtualMachineInstance',
      () => ({ verb: 'update', group: 'kubevirt.io', resource: 'virtualmachineinstances', namespace: 'default', name: 'v' }),
      false,
    ],
    [
      'is refused VirtualMachineInstance status (only KubeVirt writes the mark)',
      () => ({ verb: 'update', group: 'kubevirt.io', resource: 'virtualmachineinstances', subresource: 'status', namespace: 'default', name: 'v' }),
      false,
    ],
    ['is refused secrets', core_('get', 'secrets', own, 'x'), false],
    ['is refused listing nodes', () => ({ verb: 'list', resource: 'nodes' }), false],
  ],
  // Cleanup beyond pods (docs/objects.md): what its rules name, their owners' context, its own due lists.
  'object-updated': [
    [
      "may patch an events.k8s.io Event (the objects' Event series, updated in place)",
      () => ({ verb: 'patch', group: 'events.k8s.io', resource: 'events', namespace: 'default' }),
      true,
    ],
    ['may delete a Job', () => ({ verb: 'delete', group: 'batch', resource: 'jobs', namespace: 'default', name: 'j' }), true],
    ['may list Jobs in a namespace', () => ({ verb: 'list', group: 'batch', resource: 'jobs', namespace: 'default' }), true],
    ['may delete a claim', () => ({ verb: 'delete', resource: 'persistentvolumeclaims', namespace: 'default', name: 'c' }), true],
    [
      'may delete a Workload (one with no owner)',
      () => ({ verb: 'delete', group: 'kueue.x-k8s.io', resource: 'workloads', namespace: 'default', name: 'w' }),
      true,
    ],
    ['may list CronJobs (their history limits)', () => ({ verb: 'list', group: 'batch', resource: 'cronjobs', namespace: 'default' }), true],
    ['may list pods (what names a claim)', () => ({ verb: 'list', resource: 'pods', namespace: 'default' }), true],
    ['may list StatefulSets (their claim templates)', () => ({ verb: 'list', group: 'apps', resource: 'statefulsets', namespace: 'default' }), true],
    ['may get a volume (its reclaim policy)', () => ({ verb: 'get', resource: 'persistentvolumes', name: 'v' }), true],
    ['is refused deleting a volume', () => ({ verb: 'delete', resource: 'persistentvolumes', name: 'v' }), false],
    ['is refused deleting a pod', pods('delete', 'default'), false],
    ['is refused deleting a CronJob', () => ({ verb: 'delete', group: 'batch', resource: 'cronjobs', namespace: 'default', name: 'c' }), false],
    ['may update its Job due list by name', core_('update', 'configmaps', own, 'kube-tidy-objects-due-job-0'), true],
    ['may update its claims due list by name', core_('update', 'configmaps', own, 'kube-tidy-objects-due-pvc-3'), true],
    ["is refused pod cleanup's due list", core_('update', 'configmaps', own, 'kube-tidy-due-0'), false],
    ["may update the brakes' ledger in its own namespace", core_('update', 'configmaps', own, 'kube-tidy-brakes'), true],
    ['is refused secrets', core_('get', 'secrets', own, 'x'), false],
  ],
  'apiserver-source': [
    ['may get, list and watch pods', () => ({ verb: 'watch', resource: 'pods' }), true],
    ['may list pods', () => ({ verb: 'list', resource: 'pods' }), true],
    ['may watch Jobs', () => ({ verb: 'watch', group: 'batch', resource: 'jobs' }), true],
    ['may get a Job', () => ({ verb: 'get', group: 'batch', resource: 'jobs', namespace: 'default', name: 'j' }), true],
    ['may watch claims (objectUpdated)', () => ({ verb: 'watch', resource: 'persistentvolumeclaims' }), true],
    ['is refused deleting a pod', pods('delete', 'default'), false],
    ['is refused evicting a pod', (n) => ({ verb: 'create', resource: 'pods', subresource: 'eviction', namespace: n.own }), false],
    ['is refused watching secrets', () => ({ verb: 'watch', resource: 'secrets' }), false],
    ['is refused watching nodes', () => ({ verb: 'watch', resource: 'nodes' }), false],
    ['is refused the policy ConfigMap', core_('get', 'configmaps', own, 'kube-tidy-policy'), false],
  ],
  // Only an identity people mint sender tokens of (docs/safety.md "Sender authentication"): no rights.
  invoker: [
    ['is refused getting a pod', pods('get', 'default'), false],
    ['is refused listing pods', () => ({ verb: 'list', resource: 'pods' }), false],
    ['is refused the policy ConfigMap', core_('get', 'configmaps', own, 'kube-tidy-policy'), false],
    [
      'is refused minting tokens of other accounts',
      (n) => ({ verb: 'create', resource: 'serviceaccounts', subresource: 'token', namespace: n.own, name: 'sweep' }),
      false,
    ],
  ],
  'dead-letters': [
    ['is refused getting a pod', pods('get', 'default'), false],
    ['is refused the policy ConfigMap', core_('get', 'configmaps', own, 'kube-tidy-policy'), false],
  ],
};

for (const [sa, rows] of Object.entries(table)) {
  describe(`ServiceAccount ${sa}`, () => {
    for (const [sentence, attrs, expected] of rows) {
      it(sentence, async () => {
        expect(await allowed(sa, attrs({ own: ns.name, kueue }))).toBe(expected);
      });
    }
  });
}

describe('the table covers every ServiceAccount the manifests create', () => {
  it('has a row set for each', () => {
    const manifests = renderKnative(readDeclaration(), { namespace: 'n', kueueNamespace: 'k', prefix: 'p', image: 'x' });
    const accounts = manifests['20-rbac.yaml']!.filter((o) => o.kind === 'ServiceAccount').map((o) => (o.metadata as { name: string }).name);
    expect(accounts.sort()).toEqual(Object.keys(table).sort());
  });
});

// The chart's RBAC for TTL on any kind (templates/ttl-rbac.yaml) with the real Helm: values
// ttl.kinds become the same ClusterRole rules `kube-tidy rbac --policy` prints for a policy
// naming those kinds, bound to the accounts that run the ttl rules (standalone's; knative's
// sweep and invoke); none by default; and the API server takes the rendered objects (a
// server-side dry run on the shared control plane).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ttlDueRole, ttlRbacRules } from '../../../shared/hosts/cli/rbac.js';
import { objectsTtlDueName } from '../../../shared/model/keys.js';
import { TtlRuleSchema } from '../../../shared/policy/ttl-schema.js';
import { kubectl, sharedCluster } from '../../harness/index.js';
import { chartCopy, template, type Obj } from './helm.js';
import { previewsRule } from '../../fixtures/ttl-previews.js';

const chart = chartCopy();
const KINDS = { 'ttl.kinds[0].kind': 'Namespace', 'ttl.kinds[1].group': 'apps', 'ttl.kinds[1].kind': 'Deployment', 'ttl.kinds[2].kind': 'ConfigMap' };
const ttlObjects = (objects: Obj[]) => objects.filter((o) => o.metadata.name.endsWith('-ttl'));

describe('the chart’s ttl RBAC', () => {
  it('renders none by default', async () => {
    for (const mode of ['standalone', 'knative']) expect(ttlObjects((await template(chart, 'kt', 'kt', { mode }, ['--skip-tests'])).objects)).toEqual([]);
  });

  it('grants what `kube-tidy rbac` prints for the same kinds, to the standalone account', async () => {
    const { objects } = await template(chart, 'kt', 'kt', { mode: 'standalone', ...KINDS }, ['--skip-tests']);
    const [role, binding] = ttlObjects(objects) as [Obj & { rules: unknown[] }, Obj & { subjects: unknown[]; roleRef: { name: string } }];
    const policyRule = TtlRuleSchema.parse({
      name: 'r',
      kinds: [
        { version: 'v1', kind: 'Namespace' },
        { group: 'apps', version: 'v1', kind: 'Deployment' },
        { version: 'v1', kind: 'ConfigMap' },
      ],
    });
    // The CLI groups by API group; the chart writes one rule per kind: the same rights.
    const rights = (rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[]) =>
      rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g}/${res}/${v}`)))).sort();
    expect(rights(role.rules as Parameters<typeof rights>[0])).toEqual(rights(ttlRbacRules([policyRule])));
    expect(binding.roleRef.name).toBe('kt-ttl');
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'kt-standalone', namespace: 'kt' }]);
  });

  it('grants the ttl kinds’ due lists by the names objectUpdated gives them (get, update; create), in kube-tidy’s namespace, to the account that times them', async () => {
    const { objects } = await template(chart, 'kt', 'kt', { mode: 'standalone', ...KINDS }, ['--skip-tests']);
    const role = objects.find((o) => o.kind === 'Role' && o.metadata.name === 'kt-ttl-due') as Obj & { rules: { verbs: string[]; resourceNames?: string[] }[] };
    const kinds = [
      { group: '', kind: 'Namespace' },
      { group: 'apps', kind: 'Deployment' },
      { group: '', kind: 'ConfigMap' },
    ];
    expect(role.metadata.namespace).toBe('kt');
    expect(role.rules.find((r) => r.resourceNames)?.resourceNames).toEqual(kinds.flatMap((k) => [0, 1, 2, 3].map((n) => objectsTtlDueName(k, n))));
    // The same rights `kube-tidy rbac` prints for a policy naming those kinds.
    const rule = TtlRuleSchema.parse({ name: 'r', kinds: kinds.map((k) => ({ ...(k.group ? { group: k.group } : {}), version: 'v1', kind: k.kind })) });
    const printed = parse(ttlDueRole([rule], 'kt-ttl-due', { namespace: 'kt', shards: 4 })) as { rules: { verbs: string[]; resourceNames?: string[] }[] };
    const rights = (rules: { verbs: string[]; resourceNames?: string[] }[]) =>
      rules.flatMap((r) => r.verbs.flatMap((v) => (r.resourceNames ?? ['*']).map((n) => `${v}/${n}`))).sort();
    expect(rights(role.rules)).toEqual(rights(printed.rules));
    const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata.name === 'kt-ttl-due') as Obj & { subjects: { name: string }[] };
    expect(binding.subjects.map((x) => x.name)).toEqual(['kt-standalone']);
  });

  it('binds the sweep and invoke accounts in knative mode, and takes a resource for an irregular plural', async () => {
    const { objects } = await template(
      chart,
      'kt',
      'kt',
      { mode: 'knative', 'ttl.kinds[0].group': 'example.com', 'ttl.kinds[0].kind': 'Mouse', 'ttl.kinds[0].resource': 'mice' },
      ['--skip-tests'],
    );
    const [role, binding] = ttlObjects(objects) as [Obj & { rules: unknown[] }, Obj & { subjects: { name: string }[] }];
    expect(role.rules).toEqual([{ apiGroups: ['example.com'], resources: ['mice'], verbs: ['delete', 'get', 'list', 'watch'] }]);
    expect(binding.subjects.map((s) => s.name)).toEqual(['sweep', 'invoke', 'object-updated']);
  });

  it('in knative mode, watches the kinds the policy’s ttl rules name and ttl.kinds grants with an ApiServerSource of their own, into objectUpdated', async () => {
    const values = join(mkdtempSync(join(tmpdir(), 'kube-tidy-helm-ttl-')), 'values.yaml');
    const policy = {
      apiVersion: 'descheduler/v1alpha2',
      kind: 'DeschedulerPolicy',
      kubeTidy: {
        ttl: [
          previewsRule({
            // The main source's and objectUpdated's already; and one ttl.kinds does not grant.
            more: [
              { group: 'batch', version: 'v1', kind: 'Job' },
              { group: 'example.com', version: 'v1', kind: 'Widget' },
            ],
          }),
        ],
      },
    };
    writeFileSync(values, stringify({ policy: stringify(policy) }));
    const set = { mode: 'knative', ...KINDS, 'ttl.kinds[3].group': 'batch', 'ttl.kinds[3].kind': 'Job' };
    const { objects } = await template(chart, 'kt', 'kt', set, ['--skip-tests', '-f', values]);
    const source = objects.find((o) => o.kind === 'ApiServerSource' && o.metadata.name === 'apiserver-ttl') as Obj & {
      spec: { resources: unknown[]; serviceAccountName: string };
    };
    expect(source.spec.resources).toEqual([
      { apiVersion: 'v1', kind: 'Namespace' },
      { apiVersion: 'apps/v1', kind: 'Deployment' },
    ]);
    expect(source.spec.serviceAccountName).toBe('apiserver-source');
    const triggers = objects.filter((o) => o.kind === 'Trigger' && o.metadata.name.startsWith('object-updated-ttl-')).map((o) => o.metadata.name);
    expect(triggers.sort()).toEqual(['deployment', 'namespace'].flatMap((k) => ['add', 'delete', 'update'].map((v) => `object-updated-ttl-${k}-${v}`)));
    // The source's account reads them (get, list, watch) and deletes nothing.
    const watch = objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'kt-ttl-watch') as Obj & { rules: { verbs: string[] }[] };
    expect(new Set(watch.rules.flatMap((r) => r.verbs))).toEqual(new Set(['get', 'list', 'watch']));
    const bound = objects.find((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === 'kt-ttl-watch') as Obj & { subjects: { name: string }[] };
    expect(bound.subjects.map((s) => s.name)).toEqual(['apiserver-source']);
    // Without ttl rules in the policy (the default policy), no source and no Triggers.
    const plain = (await template(chart, 'kt', 'kt', { mode: 'knative', ...KINDS }, ['--skip-tests'])).objects;
    expect(plain.filter((o) => o.metadata.name === 'apiserver-ttl' || o.metadata.name.startsWith('object-updated-ttl-'))).toEqual([]);
  });

  it('is accepted by the API server (server-side dry run)', async () => {
    const { objects } = await template(chart, 'kt-ttl-dry', 'kt-ttl-dry', { mode: 'standalone', ...KINDS }, ['--skip-tests']);
    const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-helm-ttl-')), 'ttl.yaml');
    writeFileSync(
      file,
      ttlObjects(objects)
        .map((o) => stringify(o))
        .join('---\n'),
    );
    const out = await kubectl(sharedCluster(), [
      'apply',
      '--server-side',
      '--dry-run=server',
      '--validate=strict',
      '--field-manager=kube-tidy-test',
      '-f',
      file,
    ]);
    expect(
      out
        .trim()
        .split('\n')
        .filter((l) => /\(server dry run\)$/.test(l)),
    ).toHaveLength(2);
  });
});

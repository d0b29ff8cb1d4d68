// The chart's RBAC for TTL on any kind (templates/ttl-rbac.yaml) with the real Helm: values
// ttl.kinds become the same ClusterRole rules `kube-tidy rbac --policy` prints for a policy
// naming those kinds, bound to the accounts that run the ttl rules (standalone's; knative's
// sweep and invoke); none by default; and the API server takes the rendered objects (a
// server-side dry run on the shared control plane).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ttlRbacRules } from '../../../shared/hosts/cli/rbac.js';
import { TtlRuleSchema } from '../../../shared/policy/ttl-schema.js';
import { kubectl, sharedCluster } from '../../harness/index.js';
import { chartCopy, template, type Obj } from './helm.js';

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

  it('binds the sweep and invoke accounts in knative mode, and takes a resource for an irregular plural', async () => {
    const { objects } = await template(
      chart,
      'kt',
      'kt',
      { mode: 'knative', 'ttl.kinds[0].group': 'example.com', 'ttl.kinds[0].kind': 'Mouse', 'ttl.kinds[0].resource': 'mice' },
      ['--skip-tests'],
    );
    const [role, binding] = ttlObjects(objects) as [Obj & { rules: unknown[] }, Obj & { subjects: { name: string }[] }];
    expect(role.rules).toEqual([{ apiGroups: ['example.com'], resources: ['mice'], verbs: ['delete', 'list', 'watch'] }]);
    expect(binding.subjects.map((s) => s.name)).toEqual(['sweep', 'invoke']);
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

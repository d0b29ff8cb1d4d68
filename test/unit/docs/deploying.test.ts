// docs/deploying.md is held to the code it describes, so the next family cannot land without
// its rows: every function kube-tidy serves has a row in the functions table, and the RBAC
// table states exactly the rights the generated manifests grant (no more, no fewer), account by
// account, scope by scope.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TARGETS } from '../../../functions/index.js';
import { kebab, readDeclaration } from '../../../infra/declaration/declaration.js';
import { DOCS_ROOT } from '../../../infra/docs/generate.js';
import { generatedGrants, grantDifferences, tableGrants } from '../../../infra/docs/rbac-table.js';
import { codeSpans, tableRows } from '../../../infra/docs/tables.js';
import { renderRbac } from '../../../infra/knative/rbac.js';
import { defaultOptions } from '../../../infra/knative/render.js';

const page = readFileSync(join(DOCS_ROOT, 'docs/deploying.md'), 'utf8');
const decl = readDeclaration();

describe("docs/deploying.md's functions table", () => {
  it('has a row for every target functions/index.ts serves, and none for a target it does not', () => {
    const documented = tableRows(page, ['target', 'trigger', 'what it does']).flatMap(([target = '']) => codeSpans(target));
    expect(Object.keys(TARGETS).filter((t) => !documented.includes(t))).toEqual([]);
    expect(documented.filter((t) => !Object.hasOwn(TARGETS, t))).toEqual([]);
  });
});

describe("docs/deploying.md's RBAC table", () => {
  it('states every right the generated ServiceAccounts hold, and none they do not', () => {
    const o = defaultOptions(decl);
    const problems: string[] = [];
    const table = tableGrants(
      tableRows(page, ['account', 'may', 'scope']),
      Object.keys(decl.functions).map((f) => kebab(f)),
      problems,
    );
    expect(problems).toEqual([]);
    expect(grantDifferences(table, generatedGrants(renderRbac(decl, o), { own: o.namespace, kueue: o.kueueNamespace }))).toEqual([]);
  });
});

describe('the RBAC table check', () => {
  const role = (kind: string, name: string, namespace: string | undefined, rules: unknown[]) => [
    { kind, metadata: { name, ...(namespace ? { namespace } : {}) }, rules },
    { kind: `${kind}Binding`, metadata: { name, ...(namespace ? { namespace } : {}) }, roleRef: { name }, subjects: [{ name: 'sweep' }] },
  ];
  const objects = [
    { kind: 'ServiceAccount', metadata: { name: 'sweep' } },
    { kind: 'ServiceAccount', metadata: { name: 'quiet' } },
    ...role('ClusterRole', 'r', undefined, [{ apiGroups: ['', 'batch'], resources: ['pods', 'jobs'], verbs: ['list'] }]),
    ...role('Role', 'r-own', 'kt', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['due-0', 'due-1'], verbs: ['get'] }]),
  ];
  const generated = generatedGrants(objects, { own: 'kt', kueue: 'kueue-system' });
  const read = (rows: string[][]) => {
    const problems: string[] = [];
    return { grants: tableGrants(rows, ['sweep'], problems), problems };
  };

  it('reads verbs, resources, names and scopes, parentheses aside, and "nothing"', () => {
    const { grants, problems } = read([
      ['`sweep`', 'list `pods`, `jobs.batch`, `pods.batch`, `jobs` (each group)', 'cluster'],
      ['every function', 'get `configmaps` named `due-<n>`', 'its namespace'],
      ['`quiet`', 'nothing (no token)', ''],
    ]);
    expect(problems).toEqual([]);
    expect(grantDifferences(grants, generated)).toEqual([]);
  });

  it('says what is missing, what is claimed beyond the grants, an account without a row and a clause it cannot read', () => {
    const { grants, problems } = read([
      ['`sweep`', 'list, delete `pods`; the jobs', 'cluster'],
      ['`sweep`', 'get `configmaps` named `due-<n>`', 'somewhere'],
    ]);
    expect(problems).toEqual([
      'row "`sweep`": "the jobs" is not "<verbs> `resource`[, ...] [named `name`, ...]"',
      'row "`sweep`": scope "somewhere" is not cluster, its namespace or the kueue namespace',
    ]);
    expect(grantDifferences(grants, generated).sort()).toEqual(
      [
        'quiet: no row',
        'sweep: cluster delete pods: in the table, not granted',
        'sweep: cluster list jobs: granted, not in the table',
        'sweep: cluster list jobs.batch: granted, not in the table',
        'sweep: cluster list pods.batch: granted, not in the table',
        'sweep: own get configmaps due-<n>: granted, not in the table',
      ].sort(),
    );
  });
});

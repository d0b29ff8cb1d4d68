// docs/deploying.md's RBAC table against the RBAC the generator writes (infra/knative/rbac.ts,
// the chart's knative mode is the same objects): every right granted is in the table, and the
// table claims no right that is not granted. A right is one grant, `<scope> <verb> <resource>`
// (`resource.group` as kubectl names it, `/subresource` after it) and the ConfigMap name when a rule names
// some (a shard's number written `<n>`).
//
// The table's "may" cell is written in clauses a reader and this file both read:
//   get, list, delete `jobs.batch`, `persistentvolumeclaims`; create `pods/eviction`
//   get, update `configmaps` named `kube-tidy-brakes`, `kube-tidy-due-<n>`   (why, in parentheses)
// "nothing" for an account without rights. Its scope cell starts with "cluster", "its namespace"
// or "the kueue namespace". "every function" in the account cell is every function's account.
import { codeSpans } from './tables.js';

type Obj = Record<string, unknown>;
type K8sRule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
export type Scope = 'cluster' | 'own' | 'kueue';

const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const;
const shard = (name: string) => name.replace(/-\d+$/, '-<n>');
const grant = (scope: Scope, verb: string, resource: string, name?: string) => `${scope} ${verb} ${resource}${name ? ` ${shard(name)}` : ''}`;
/** `resource.group` as kubectl names it, a subresource after it: `evictions.lifecycle.k8s.io/status`. */
const qualified = (group: string, resource: string) => {
  const [base, sub] = resource.split('/');
  return `${base}${group ? `.${group}` : ''}${sub ? `/${sub}` : ''}`;
};

/** Account -> the grants the generated objects give it (every ServiceAccount is there, with none if it has none). */
export function generatedGrants(objects: Obj[], namespaces: { own: string; kueue: string }): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const o of objects) if (o.kind === 'ServiceAccount') out.set((o.metadata as { name: string }).name, new Set());
  const roles = objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role');
  for (const role of roles) {
    const meta = role.metadata as { name: string; namespace?: string };
    const bound = objects.filter(
      (b) => (b.roleRef as { name?: string } | undefined)?.name === meta.name && (b.metadata as { namespace?: string }).namespace === meta.namespace,
    );
    const scope: Scope = !meta.namespace ? 'cluster' : meta.namespace === namespaces.kueue ? 'kueue' : 'own';
    for (const b of bound)
      for (const s of b.subjects as { name: string }[]) {
        const set = out.get(s.name) ?? new Set<string>();
        for (const r of role.rules as K8sRule[])
          for (const g of r.apiGroups)
            for (const res of r.resources)
              for (const v of r.verbs) for (const n of r.resourceNames ?? [undefined]) set.add(grant(scope, v, qualified(g, res), n));
        out.set(s.name, set);
      }
  }
  return out;
}

function scopeOf(cell: string): Scope | undefined {
  if (/^cluster\b/i.test(cell)) return 'cluster';
  if (/^its namespace\b/i.test(cell)) return 'own';
  if (/^the kueue namespace\b/i.test(cell)) return 'kueue';
  return undefined;
}

/** One clause's grants, or why it cannot be read. */
function clauseGrants(scope: Scope, clause: string): string[] | string {
  const verbs: string[] = [];
  let rest = clause;
  for (let m = /^(\w+)(?:,\s*|\s+and\s+|\s+)/.exec(rest); m && (VERBS as readonly string[]).includes(m[1]!); m = /^(\w+)(?:,\s*|\s+and\s+|\s+)/.exec(rest)) {
    verbs.push(m[1]!);
    rest = rest.slice(m[0].length);
  }
  const [what, named] = rest.split(/\bnamed\b/) as [string, string | undefined];
  const resources = codeSpans(what);
  const names = named === undefined ? [undefined] : codeSpans(named);
  if (!verbs.length || !resources.length || !names.length) return `"${clause}" is not "<verbs> \`resource\`[, ...] [named \`name\`, ...]"`;
  return verbs.flatMap((v) => resources.flatMap((r) => names.map((n) => grant(scope, v, r, n))));
}

/** Account -> the grants the table states; `problems` gets every row or clause it cannot read. */
export function tableGrants(rows: string[][], functionAccounts: readonly string[], problems: string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [who = '', may = '', where = ''] of rows) {
    const accounts = [...codeSpans(who), ...(/every function/.test(who) ? functionAccounts : [])];
    if (!accounts.length) problems.push(`row "${who}": names no account`);
    const granted: string[] = [];
    const clauses = may
      .replace(/\([^)]*\)/g, '')
      .split(';')
      .map((c) => c.trim())
      .filter((c) => c && !/^nothing\b/.test(c));
    const scope = scopeOf(where);
    if (clauses.length && !scope) problems.push(`row "${who}": scope "${where}" is not cluster, its namespace or the kueue namespace`);
    for (const c of scope ? clauses : []) {
      const g = clauseGrants(scope!, c);
      if (typeof g === 'string') problems.push(`row "${who}": ${g}`);
      else granted.push(...g);
    }
    for (const a of accounts) out.set(a, new Set([...(out.get(a) ?? []), ...granted]));
  }
  return out;
}

/** What differs, one line each: a right granted that the table leaves out, one it states that is not granted, an account without a row. */
export function grantDifferences(table: Map<string, Set<string>>, generated: Map<string, Set<string>>): string[] {
  const out: string[] = [];
  for (const [account, rights] of generated) {
    const said = table.get(account);
    if (!said) out.push(`${account}: no row`);
    else for (const r of rights) if (!said.has(r)) out.push(`${account}: ${r}: granted, not in the table`);
  }
  for (const [account, said] of table) for (const r of said) if (!generated.get(account)?.has(r)) out.push(`${account}: ${r}: in the table, not granted`);
  return out;
}

// The descheduler's own RBAC as its e2e script applies it (`kubectl apply -f
// kubernetes/base/rbac.yaml`: ServiceAccount kube-system/descheduler-sa, ClusterRole
// descheduler-cluster-role, Role descheduler-role and their bindings), read from the Go module
// at test time. `head`: the same file with the ClusterRole's rules as HEAD has them
// (test/harness/descheduler-rbac.ts: `pods delete` removed after v0.36.0, descheduler#1887,
// PR #1888; HEAD's file differs from v0.36.0's in that verb only). Under it a terminal pod can
// only go through the Eviction API.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { deschedulerModuleDir } from '../../../infra/local/descheduler/build.js';
import { deschedulerRoleRules, type RoleVariant } from '../../harness/descheduler-rbac.js';
import { kubectl } from '../../harness/index.js';

/** The RBAC documents for `variant`, as YAML (JSON documents for `head`). */
export function deschedulerRbac(variant: RoleVariant): string {
  const text = readFileSync(join(deschedulerModuleDir(), 'kubernetes', 'base', 'rbac.yaml'), 'utf8');
  if (variant === 'v0.36.0') return text;
  const docs = parseAllDocuments(text)
    .map((d) => d.toJS() as { kind: string; rules?: unknown } | null)
    .filter((d) => d !== null);
  return docs.map((d) => JSON.stringify(d.kind === 'ClusterRole' ? { ...d, rules: deschedulerRoleRules('head') } : d)).join('\n---\n');
}

export async function applyDeschedulerRbac(cluster: { kubeconfigPath: string }, variant: RoleVariant): Promise<void> {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-descheduler-rbac-')), 'rbac.yaml');
  writeFileSync(file, deschedulerRbac(variant));
  await kubectl(cluster, ['apply', '-f', file]);
}

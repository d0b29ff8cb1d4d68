// The descheduler's own RBAC (kubernetes/base/rbac.yaml: ServiceAccount kube-system/descheduler-sa,
// ClusterRole descheduler-cluster-role, Role descheduler-role and their bindings), read from the
// Go module at test time and applied as its e2e script applies it (`kubectl apply -f`).
// Two versions of the ClusterRole:
// - v0.36.0: the file as released, with `pods: get, watch, list, delete`;
// - head: upstream removed `delete` from that rule after v0.36.0 (kubernetes-sigs/descheduler
//   issue #1887, PR #1888, commit 341aba272); HEAD's file (7d2b28bf2) differs from v0.36.0's in
//   that one verb only, so it is built here from v0.36.0's file with that verb taken out. Under
//   it a terminal pod can only go through the Eviction API.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { deschedulerModuleDir } from '../../../infra/local/descheduler/e2e-build.js';
import { kubectl } from '../../harness/index.js';

export type DeschedulerRole = 'v0.36.0' | 'head';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
}

/** The RBAC documents for `role`, as YAML. */
export function deschedulerRbac(role: DeschedulerRole): string {
  const text = readFileSync(join(deschedulerModuleDir(), 'kubernetes', 'base', 'rbac.yaml'), 'utf8');
  if (role === 'v0.36.0') return text;
  const docs = parseAllDocuments(text).map((d) => d.toJSON() as { kind: string; rules?: Rule[] } | null);
  for (const doc of docs) {
    if (doc?.kind !== 'ClusterRole') continue;
    for (const rule of doc.rules ?? []) {
      if (rule.apiGroups?.[0] === '' && rule.resources?.join() === 'pods') rule.verbs = rule.verbs.filter((v) => v !== 'delete');
    }
  }
  return docs
    .filter(Boolean)
    .map((d) => JSON.stringify(d))
    .join('\n---\n');
}

export async function applyDeschedulerRbac(cluster: { kubeconfigPath: string }, role: DeschedulerRole): Promise<void> {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-descheduler-rbac-')), 'rbac.yaml');
  writeFileSync(file, deschedulerRbac(role));
  await kubectl(cluster, ['apply', '-f', file]);
}

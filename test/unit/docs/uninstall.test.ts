// docs/uninstall.md names everything kube-tidy keeps in a cluster (shared/model/keys.ts is where
// every such name lives) and a command that removes it: a new ConfigMap, Lease, annotation or
// label kube-tidy writes fails here until the page says how to remove it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS_ROOT } from '../../../infra/docs/generate.js';
import { MANAGED_BY, MANAGED_BY_LABEL } from '../../../shared/cleanup/reports/core/names.js';
import * as keys from '../../../shared/model/keys.js';

const page = readFileSync(join(DOCS_ROOT, 'docs', 'uninstall.md'), 'utf8');
/** The shell blocks' text: what a person runs. */
const commands = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n');

describe('docs/uninstall.md', () => {
  it('names every ConfigMap and Lease kube-tidy keeps its state in, and deletes each', () => {
    const names = [keys.BRAKES_NAME, keys.PLANS_NAME, keys.EVACUATION_SLOTS_NAME, keys.DEFAULT_LEASE_NAME, keys.WITNESS_CONFIGMAP];
    for (const n of names) {
      expect(page, n).toContain(`\`${n}\``);
      expect(commands, n).toContain(n);
    }
    // The due lists by their prefixes: the pods' and each kind's of the objects'.
    expect(commands).toContain(`grep -E '^configmap/kube-tidy-(objects-)?due-'`);
    expect(`configmap/${keys.dueName(3)}`).toMatch(/^configmap\/kube-tidy-(objects-)?due-/);
    for (const kind of Object.keys(keys.OBJECTS_DUE_KINDS) as (keyof typeof keys.OBJECTS_DUE_KINDS)[])
      expect(`configmap/${keys.objectsDueName(kind, 0)}`).toMatch(/^configmap\/kube-tidy-(objects-)?due-/);
  });

  it("removes the reports by kube-tidy's label, and undoes defragmentation's and evacuation's marks", () => {
    expect(commands).toContain(`-l ${MANAGED_BY_LABEL}=${MANAGED_BY}`);
    for (const a of [keys.DEFRAG_MARK, keys.DEFRAG_IN_FLIGHT, keys.DEFRAG_CORDONED]) expect(commands, a).toContain(`${a}-`);
    expect(commands).toContain('kubectl uncordon');
    for (const a of keys.EVACUATION_MARKERS) expect(commands, a).toContain(`${a}-`);
    expect(commands).toContain(`-l ${keys.EVICTION_REQUEST_POD_UID_LABEL}`);
  });

  it('says kube-tidy installs no CRD, no webhook and no finalizer: the chart, the manifests and the code hold none', () => {
    expect(page).toContain('kube-tidy installs no CRD, no webhook and no finalizer');
    const files = (dir: string, ext: RegExp) =>
      readdirSync(join(DOCS_ROOT, dir), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && ext.test(e.name))
        .map((e) => join(e.parentPath, e.name));
    // Helm installs a chart's crds/ folder before its templates.
    expect(existsSync(join(DOCS_ROOT, 'infra', 'helm', 'kube-tidy', 'crds'))).toBe(false);
    const installed = [...files('infra/helm/kube-tidy/templates', /\.(yaml|tpl)$/), ...files('infra/knative/manifests', /\.yaml$/)];
    expect(installed.length).toBeGreaterThan(0);
    for (const f of installed) expect(readFileSync(f, 'utf8'), f).not.toMatch(/kind:\s*(CustomResourceDefinition|\w*WebhookConfiguration)\b/);
    const code = [...files('shared', /\.ts$/), ...files('functions', /\.ts$/)].filter((f) => !f.endsWith('.test.ts'));
    for (const f of code) expect(readFileSync(f, 'utf8'), f).not.toMatch(/finalizers/i);
  });
});

// The one fetch routine for upstream CRDs (infra/local/crds/fetch.ts), over a module folder of
// our own making instead of the Go module proxy: the named files land under their set's
// versions with the stamp, a set is fetched once, a module missing a file leaves nothing that
// looks finished, and a copy cut short before is replaced.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crdsDir, fetchCrds, type Download } from '../../../infra/local/crds/fetch.js';
import { CRD_SETS } from '../../../infra/local/crds/sources.js';

const made: string[] = [];
const temp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
};
afterEach(() => made.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A module cache holding every file the sets name (less `drop`), and the downloads asked for. */
function fakeModules(drop: string[] = []) {
  const cache = temp('kt-modules-');
  const asked: string[] = [];
  for (const set of Object.values(CRD_SETS))
    for (const m of set.modules) {
      const dir = join(cache, `${m.module}@${m.version}`, m.from);
      mkdirSync(dir, { recursive: true });
      for (const f of m.files) if (!drop.includes(f)) writeFileSync(join(dir, f), `# ${m.module} ${f}\n`);
      writeFileSync(join(dir, 'kustomization.yaml'), '# not a CRD the tests name\n');
    }
  const download: Download = (at) => {
    asked.push(at);
    return join(cache, at);
  };
  return { download, asked };
}

const quiet = { log: () => {} };

describe('fetching an upstream CRD set', () => {
  it("copies the named files of every module of the set, prefixed, with the set's stamp", () => {
    const root = temp('kt-cache-');
    const { download, asked } = fakeModules();
    const dir = fetchCrds('knative', { download, root, ...quiet });
    expect(dir).toBe(crdsDir('knative', root));
    expect(dir).toContain(join('crds', 'knative', 'eventing-v0.50.0+serving-v0.50.0', 'crds'));
    expect(readdirSync(dir).sort()).toEqual([
      'eventing_apiserversource.yaml',
      'eventing_broker.yaml',
      'eventing_pingsource.yaml',
      'eventing_trigger.yaml',
      'serving_service.yaml',
    ]);
    expect(readFileSync(join(dir, 'serving_service.yaml'), 'utf8')).toBe('# knative.dev/serving service.yaml\n');
    expect(asked).toEqual(['knative.dev/eventing@v0.50.0', 'knative.dev/serving@v0.50.0']);
    const stamp = JSON.parse(readFileSync(join(dir, '..', 'complete.stamp'), 'utf8')) as { modules: string[] };
    expect(stamp.modules).toEqual(asked);
  });

  it('fetches a set once: a stamped folder is taken as it is', () => {
    const root = temp('kt-cache-');
    const { download, asked } = fakeModules();
    fetchCrds('kueue', { download, root, ...quiet });
    fetchCrds('kueue', { download, root, ...quiet });
    expect(asked).toEqual(['sigs.k8s.io/kueue@v0.19.2']);
    expect(readdirSync(crdsDir('kueue', root))).toHaveLength(6);
  });

  it('fails naming the missing file, and leaves neither the set nor a half copy', () => {
    const root = temp('kt-cache-');
    const { download } = fakeModules(['kueue.x-k8s.io_workloads.yaml']);
    expect(() => fetchCrds('kueue', { download, root, ...quiet })).toThrow(
      /sigs\.k8s\.io\/kueue@v0\.19\.2: config\/components\/crd\/bases has no kueue\.x-k8s\.io_workloads\.yaml/,
    );
    expect(readdirSync(join(root, 'crds', 'kueue'))).toEqual([]);
  });

  it('replaces a folder without its stamp (a copy cut short) instead of trusting it', () => {
    const root = temp('kt-cache-');
    const dir = crdsDir('openreports', root);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'openreports.io_reports.yaml'), '# cut off');
    const { download } = fakeModules();
    fetchCrds('openreports', { download, root, ...quiet });
    expect(readFileSync(join(dir, 'openreports.io_reports.yaml'), 'utf8')).toContain('reports-api');
    expect(existsSync(join(dir, '..', 'complete.stamp'))).toBe(true);
  });
});

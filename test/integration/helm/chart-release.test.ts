// The chart as the release publishes it: `helm package` of the tree's chart (the artifact the
// release workflow pushes to oci://ghcr.io/kube-tidy/charts), linted as a package, its version
// and appVersion the npm package's, and the image by tag or pinned by digest in every pod it
// renders, the `helm test` hook's included.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { chartCopy, containersOf, helm, template, type Obj } from './helm.js';

const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const MULTIKUEUE = ['--api-versions', 'kueue.x-k8s.io/v1beta2/MultiKueueCluster'];
let packaged: string;

/** Every container image of the rendered objects (Knative Services, the Deployment, the test Pod), by object. */
const images = (objects: Obj[]): string[] => containersOf(objects).map((c) => c.image);

beforeAll(async () => {
  const dest = mkdtempSync(join(tmpdir(), 'kube-tidy-chart-package-'));
  const out = await helm(['package', chartCopy(), '--destination', dest]);
  packaged = join(dest, `kube-tidy-${version}.tgz`);
  expect(out).toContain(packaged);
});

describe('helm package', () => {
  it("gives kube-tidy-<version>.tgz whose version and appVersion are package.json's", async () => {
    const chart = parse(await helm(['show', 'chart', packaged])) as { name: string; version: string; appVersion: string };
    expect([chart.name, chart.version, chart.appVersion]).toEqual(['kube-tidy', version, version]);
  });

  it('lints as a package in both modes', async () => {
    for (const mode of ['knative', 'standalone'])
      expect(await helm(['lint', packaged, '--strict', '--set', `mode=${mode}`])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('renders the helm test hook from the package (standalone mode)', async () => {
    const { objects } = await template(packaged, 'kube-tidy', 'kube-tidy', { mode: 'standalone' });
    const hooks = objects.filter((o) => (o.metadata as { annotations?: Record<string, string> }).annotations?.['helm.sh/hook'] === 'test');
    expect(hooks.map((o) => o.kind)).toEqual(['ServiceAccount', 'Role', 'RoleBinding', 'Pod']);
  });
});

describe('the image, by tag or by digest', () => {
  for (const mode of ['knative', 'standalone']) {
    it(`${mode} mode: the release's tag by default, image@digest with imageDigest, a whole reference as given`, async () => {
      const base = { mode };
      const byTag = images((await template(packaged, 'kube-tidy', 'kube-tidy', base, MULTIKUEUE)).objects).filter((i) => i.includes('kube-tidy'));
      expect(byTag.length).toBeGreaterThan(0);
      expect(new Set(byTag)).toEqual(new Set([`ghcr.io/kube-tidy/kube-tidy:${version}`]));
      const pinned = images((await template(packaged, 'kube-tidy', 'kube-tidy', { ...base, imageDigest: DIGEST }, MULTIKUEUE)).objects).filter((i) =>
        i.includes('kube-tidy'),
      );
      expect(pinned).toEqual(byTag.map(() => `ghcr.io/kube-tidy/kube-tidy:${version}@${DIGEST}`));
      const whole = `registry.example/kt@${DIGEST}`;
      const given = images((await template(packaged, 'kube-tidy', 'kube-tidy', { ...base, image: whole }, MULTIKUEUE)).objects).filter((i) =>
        i.includes('kt@'),
      );
      expect(given).toEqual(byTag.map(() => whole));
    });
  }

  it('refuses a digest that is not sha256 and 64 hex digits, and a digest given twice', async () => {
    await expect(template(packaged, 'kube-tidy', 'kube-tidy', { imageDigest: 'sha256:abc' })).rejects.toThrow(
      /imageDigest is "sha256:abc": use sha256: and 64 hex digits/,
    );
    await expect(template(packaged, 'kube-tidy', 'kube-tidy', { image: `r.example/kt@${DIGEST}`, imageDigest: DIGEST })).rejects.toThrow(
      /already names a digest/,
    );
  });
});

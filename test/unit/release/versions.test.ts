// One version for everything a release publishes (docs/versioning.md): the npm package's
// (package.json) is the chart's version and appVersion, the image tag the chart, the generated
// manifests and serverless.yml name, what `kube-tidy descheduler --version` reports, the
// version the docs install (`npx kube-tidy@X.Y.Z`, the chart's `--version`), and an entry of
// CHANGELOG.md. A bump that misses one of them fails here, before a tag is pushed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { CHART_DIR } from '../../../infra/helm/chart.js';

const read = (f: string) => readFileSync(join(REPO_ROOT, f), 'utf8');
const version = (JSON.parse(read('package.json')) as { version: string }).version;

/** Every place that names the release's version, and the version it names there. */
function named(): Record<string, string | undefined> {
  const chart = parse(read(join(CHART_DIR, 'Chart.yaml'))) as { version: string; appVersion: string };
  const values = parse(read(join(CHART_DIR, 'values.yaml'))) as { image: string };
  const serverless = parse(read('serverless.yml')) as { provider: { image: string } };
  const manifests = [...read('infra/knative/manifests/30-services.yaml').matchAll(/image: ghcr\.io\/kube-tidy\/kube-tidy:(\S+)/g)].map((m) => m[1]);
  const command = read('shared/hosts/descheduler/command.ts');
  return {
    'Chart.yaml version': chart.version,
    'Chart.yaml appVersion': chart.appVersion,
    "values.yaml image's tag": /:([^:@/]+)$/.exec(values.image)?.[1],
    "serverless.yml image's tag": /:([^:@/]+)$/.exec(serverless.provider.image)?.[1],
    "infra/knative/manifests images' tags": [...new Set(manifests)].join(','),
    'kube-tidy descheduler --version': /DeschedulerVersion: 'kube-tidy-v([^ ]+) /.exec(command)?.[1],
  };
}

describe('the release version', () => {
  it('is a semantic version', () => {
    expect(version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
  });

  it("is package.json's everywhere a release names it", () => {
    const all = named();
    expect(all).toEqual(Object.fromEntries(Object.keys(all).map((k) => [k, version])));
  });

  it("is the one the docs install: npx kube-tidy@<version>, the chart's --version", () => {
    const docs = [
      'README.md',
      ...readdirSync(join(REPO_ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const pinned = docs.flatMap((f) =>
      [...read(f).matchAll(/kube-tidy@(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)|charts\/kube-tidy --version (\S+)/g)].map((m) => `${f}: ${m[1] ?? m[2]}`),
    );
    expect(pinned.length).toBeGreaterThanOrEqual(4);
    expect(pinned.filter((p) => !p.endsWith(`: ${version}`))).toEqual([]);
  });

  it('has an entry in CHANGELOG.md, with a link to its release', () => {
    const changelog = read('CHANGELOG.md');
    expect(changelog).toMatch(new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\] - (\\d{4}-\\d{2}-\\d{2}|Unreleased)$`, 'm'));
    expect(changelog).toContain(`[${version}]: https://github.com/kube-tidy/kube-tidy/releases/tag/v${version}`);
  });
});

// The GitHub Actions workflows (.github/workflows), which no forge runs here: actionlint (built
// from its Go module, npm run actionlint:build) checks their syntax, expressions, job graph and
// the inputs of the actions they use; then what the release must do, read from release.yml:
// publish only on a version tag, after the tests, the image for amd64 and arm64 from the one
// Dockerfile, under the name the chart runs, the chart to an OCI registry, the npm package with
// provenance, and the rendered manifests attached to the release.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { CHART_DIR } from '../../../infra/helm/chart.js';
import { ACTIONLINT_VERSION, actionlintBin } from '../../../infra/local/actionlint/build.js';

const run = promisify(execFile);
const WORKFLOWS = join(REPO_ROOT, '.github', 'workflows');
const files = readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));

type Step = { uses?: string; run?: string; with?: Record<string, unknown> };
type Job = { needs?: string | string[]; steps: Step[]; permissions?: Record<string, string> };
type Workflow = { on: Record<string, unknown>; env?: Record<string, string>; jobs: Record<string, Job> };
const release = parse(readFileSync(join(WORKFLOWS, 'release.yml'), 'utf8')) as Workflow;

/** actionlint on `paths`: its one-line findings, empty when clean. Without shellcheck on PATH it skips run: scripts' shell checks. */
async function actionlint(paths: string[]): Promise<string> {
  if (!existsSync(actionlintBin())) throw new Error(`no actionlint at ${actionlintBin()}: run npm run actionlint:build`);
  try {
    await run(actionlintBin(), ['-no-color', '-oneline', ...paths], { cwd: REPO_ROOT });
    return '';
  } catch (e) {
    return (e as { stdout?: string }).stdout || (e as Error).message;
  }
}

const needs = (job: string): string[] => [release.jobs[job]!.needs ?? []].flat();
const steps = (job: string): Step[] => release.jobs[job]!.steps;
const script = (job: string): string =>
  steps(job)
    .map((s) => s.run ?? '')
    .join('\n');

describe('actionlint', () => {
  it(`${ACTIONLINT_VERSION} finds nothing in .github/workflows (ci.yml and release.yml)`, async () => {
    expect(files.sort()).toEqual(['ci.yml', 'release.yml']);
    expect(await actionlint(files.map((f) => join(WORKFLOWS, f)))).toBe('');
  });

  it('finds a broken workflow (the check can fail)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-workflow-'));
    const broken = join(dir, 'broken.yml');
    writeFileSync(broken, 'on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    needs: nowhere\n    steps:\n      - run: echo ${{ github.nope }}\n');
    const out = await actionlint([broken]);
    expect(out).toMatch(/nowhere/);
    expect(out).toMatch(/nope/);
  });
});

/**
 * The check job's scripts (the version gate, then the notes), run with bash as the runner would
 * on a copy of the files they read, the changelog's entry dated or not.
 */
async function checkJob(tag: string, dated: boolean): Promise<{ ok: boolean; output: string; notes: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-release-check-'));
  for (const f of ['package.json', join(CHART_DIR, 'Chart.yaml'), join(CHART_DIR, 'values.yaml')]) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    cpSync(join(REPO_ROOT, f), join(dir, f));
  }
  const changelog = readFileSync(join(REPO_ROOT, 'CHANGELOG.md'), 'utf8');
  writeFileSync(join(dir, 'CHANGELOG.md'), dated ? changelog.replace(/^(## \[[^\]]+\]) - Unreleased$/m, '$1 - 2026-12-01') : changelog);
  const env = { ...process.env, ...release.env, GITHUB_REF_NAME: tag, GITHUB_OUTPUT: join(dir, 'out'), GITHUB_REPOSITORY: 'kube-tidy/kube-tidy' };
  try {
    for (const step of steps('check').filter((x) => x.run)) {
      const scriptText = step.run!.replace(/\$\{\{ steps\.version\.outputs\.version \}\}/g, tag.slice(1));
      await run('bash', ['-eo', 'pipefail', '-c', scriptText], { cwd: dir, env });
    }
    return { ok: true, output: readFileSync(join(dir, 'out'), 'utf8'), notes: readFileSync(join(dir, 'notes.md'), 'utf8') };
  } catch (e) {
    return { ok: false, output: (e as { stdout?: string }).stdout ?? '', notes: '' };
  }
}

describe('release.yml', () => {
  it("passes the tree's version once its changelog entry is dated, and gives that entry as notes, its docs links absolute", async () => {
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const r = await checkJob(`v${version}`, true);
    expect(r.ok).toBe(true);
    expect(r.output).toBe(`version=${version}\n`);
    expect(r.notes).toMatch(/^### Added$/m);
    expect(r.notes).not.toMatch(/\]\(docs\//);
    expect(r.notes).toContain(`https://github.com/kube-tidy/kube-tidy/blob/v${version}/docs/versioning.md`);
  });

  it('refuses a tag that is not the tree version, and an entry still Unreleased', async () => {
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect((await checkJob('v9.9.9', true)).output).toMatch(/::error::tag v9\.9\.9 but package\.json says/);
    expect((await checkJob(`v${version}`, false)).output).toMatch(/::error::CHANGELOG\.md has no dated entry/);
  });

  it('runs on version tags only, and the check compares the tag with package.json, the chart, values.yaml and a dated changelog entry', () => {
    expect(release.on).toEqual({ push: { tags: ['v*.*.*'] } });
    const check = script('check');
    for (const want of ['package.json', 'Chart.yaml', 'values.yaml', 'CHANGELOG.md']) expect(check).toContain(want);
  });

  it("publishes nothing before the tests pass, which are CI's own command", () => {
    expect(script('test')).toContain('.ci/run');
    for (const job of ['image', 'npm']) expect(needs(job)).toContain('test');
    expect(needs('chart')).toContain('image');
    expect(needs('release')).toEqual(expect.arrayContaining(['image', 'chart', 'npm']));
  });

  it('builds the image from infra/docker/Dockerfile for amd64 and arm64, under the name values.yaml runs', () => {
    const build = steps('image').find((s) => s.uses?.startsWith('docker/build-push-action'))!;
    expect(build.with).toMatchObject({ file: 'infra/docker/Dockerfile', platforms: 'linux/amd64,linux/arm64', push: true });
    const values = parse(readFileSync(join(REPO_ROOT, CHART_DIR, 'values.yaml'), 'utf8')) as { image: string };
    expect(values.image.split(':')[0]).toBe(release.env!.IMAGE);
  });

  it('pushes the packaged chart to an OCI registry, publishes the npm package with provenance, attaches the rendered manifests', () => {
    expect(release.env!.CHART_REPO).toMatch(/^oci:\/\//);
    expect(script('chart')).toMatch(/helm package[\s\S]*helm lint[\s\S]*helm push/);
    expect(script('npm')).toContain('npm publish --provenance');
    expect(release.jobs.npm!.permissions).toMatchObject({ 'id-token': 'write' });
    expect(script('release')).toMatch(/helm template[\s\S]*imageDigest[\s\S]*gh release create/);
  });
});

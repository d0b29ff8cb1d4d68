// The repository stands alone (infra/lint/outside-tree.ts): no tracked file builds a path that
// climbs above the root, checked over every file git knows here, and shown to catch the ways
// one was built before (the harness's sharedCrdsDir) and the others a path can take. The
// harness's runtime guard beside it: installCrds refuses a folder outside the tree and the cache.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { escapesOf } from '../../../infra/lint/outside-tree.js';
import { installCrds } from '../../harness/crds.js';
import { insideTreeOrCache } from '../../harness/inside-tree.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('no file reads a path outside the repository', () => {
  it('holds for every tracked (or new, not ignored) file', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n');
    const found = files.filter(Boolean).flatMap((f) => escapesOf(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(found.map((e) => `${e.file}:${e.line} ${e.text} (${e.why})`)).toEqual([]);
  }, 120_000); // ~900 files parsed: seconds alone, more on a shared machine

  it.each([
    [
      "the harness's old sharedCrdsDir (resolve from a root built from import.meta.url)",
      'test/harness/crds.ts',
      "const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');\nexport const dir = (name: string) => resolve(repoRoot, '..', 'elsewhere', 'crds', name);",
    ],
    ['an imported root, then one folder up', 'test/integration/x/a.ts', "readFileSync(join(REPO_ROOT, '../elsewhere/crds/kueue/x.yaml'));"],
    ['a URL from the file climbing past the root', 'test/unit/x.ts', "const D = fileURLToPath(new URL('../../../elsewhere/', import.meta.url));"],
    [
      'a root from a URL, then joined upwards',
      'test/unit/x.ts',
      "const R = fileURLToPath(new URL('../..', import.meta.url));\nreaddirSync(join(R, '..', 'elsewhere'));",
    ],
    ['import.meta.dirname with one `..` too many', 'infra/local/x.ts', "join(import.meta.dirname, '../../..', 'elsewhere');"],
    ['dirname taken once too often', 'test/harness/x.ts', 'resolve(dirname(dirname(dirname(dirname(fileURLToPath(import.meta.url))))), "elsewhere");'],
    ['an import above the root', 'functions/x.ts', "import { a } from '../../outside/a.js';"],
    ['a file read from where npm test runs', 'test/integration/x/a.test.ts', "readFileSync('../elsewhere/crds/kueue/x.yaml', 'utf8');"],
    ['resolve from the working directory', 'infra/x.ts', "const d = resolve('..', 'elsewhere');"],
    ['process.cwd() joined upwards', 'test/unit/x.ts', "join(process.cwd(), '..', 'elsewhere');"],
    ['a template whose text climbs first', 'test/unit/x.ts', 'const f = (n: string) => readFileSync(`../../../../shared/${n}`);'],
    ['a Markdown link beside the checkout', 'docs/x.md', 'See [the design](../../shared/design.md).'],
    ['a shell script climbing out', 'infra/local/x.sh', 'cd "$(dirname "$0")/../../.."'],
    ['a script at the root going to its parent', 'run.sh', 'cd "$(dirname "$0")/.."'],
    ['a JSON path climbing out', 'tsconfig.json', '{ "extends": "../tsconfig.base.json" }'],
  ])('%s is found', (_what, file, code) => {
    expect(escapesOf(file, code).length).toBeGreaterThan(0);
  });

  it.each([
    ['the root from a URL', 'test/unit/lint/x.ts', "const R = fileURLToPath(new URL('../../..', import.meta.url));\nreadFileSync(join(R, 'shared', 'x.ts'));"],
    [
      'the root by resolve, then down again',
      'test/harness/x.ts',
      "const r = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');\nresolve(r, 'test', '..', 'docs');",
    ],
    ["imports of the repository's own shared/", 'test/unit/x/a.ts', "import { b } from '../../../shared/b.js';"],
    ['a hostile name that climbs less than its file is deep', 'test/integration/adversary/a.ts', "const c = ['a traversal', '../../kube-system/pods/x'];"],
    ["a file's own path joined with `..`: its folder", 'test/unit/x.ts', "const R = join(fileURLToPath(import.meta.url), '..', '..', '..');"],
    ['a Markdown link to the README', 'docs/x.md', '[up](../README.md#top)'],
    ['a script going to the root', '.ci/run', 'cd "$(dirname "$0")/.."'],
    ['a path that goes down before it climbs', 'docs/x.md', 'see [x](a/b/../../c.md)'],
    ['a path joined from a value it cannot know', 'test/unit/x.ts', "join(dir, '..', '..', '..', '..');"],
  ])('%s is fine', (_what, file, code) => {
    expect(escapesOf(file, code)).toEqual([]);
  });
});

describe("the harness's guard on what it installs", () => {
  const root = '/src/kube-tidy';
  const cache = '/home/u/.cache/kube-tidy';

  it.each([
    ['a folder beside the checkout', '/src/kube-tidy/../elsewhere/crds/kueue'],
    ['a sibling whose name starts with the checkout', '/src/kube-tidy-shared/crds'],
    ['anywhere else', '/tmp/crds'],
  ])('refuses %s', (_what, dir) => {
    expect(() => insideTreeOrCache(dir, root, cache)).toThrow(/outside the repository/);
  });

  it.each([
    ['a fixture of the tree', '/src/kube-tidy/test/fixtures/kubevirt'],
    ['a fetched set in the cache', '/home/u/.cache/kube-tidy/crds/kueue/kueue-v0.19.2/crds'],
  ])('takes %s', (_what, dir) => {
    expect(insideTreeOrCache(dir, root, cache)).toBe(dir);
  });

  it('stops installCrds before kubectl runs', async () => {
    await expect(installCrds({ kubeconfigPath: '/nonexistent/kubeconfig' }, '/tmp/kube-tidy-beside/crds')).rejects.toThrow(/outside the repository/);
  });
});

// Every command the docs show is one that something runs (infra/docs/commands.ts says what counts
// for each kind), and the README's two commands stay the first two it shows, the second the one
// CI runs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliShape, coveredBy, literals, readmeHelmInstalls, shownCommands, type Runners } from '../../../infra/docs/commands.js';
import { DOCS_ROOT } from '../../../infra/docs/generate.js';

const read = (f: string) => readFileSync(join(DOCS_ROOT, f), 'utf8');
const tracked = (...paths: string[]) =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...paths], { cwd: DOCS_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

function runners(): Runners {
  const scripts = new Set(Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts));
  const benches = new Set([...read('test/bench/run.ts').matchAll(/(?:only === '([a-z-]+)'|^\s+'?([a-z-]+)'?: \(\))/gm)].map((m) => (m[1] ?? m[2])!));
  const testFiles = tracked('*.test.ts').filter((f) => /cli/.test(f));
  return { scripts, benches, helmInstalls: readmeHelmInstalls(DOCS_ROOT), testLiterals: testFiles.map((f) => literals(read(f))) };
}

const docs = () => tracked('README.md', 'CONTRIBUTING.md', 'docs/*.md').filter((f) => !f.startsWith('docs/reference/'));

describe('the commands the docs show', () => {
  const r = runners();
  const shown = docs().flatMap((f) => shownCommands(f, read(f)));

  it('are found: the docs show kube-tidy, npm run and helm install lines', () => {
    expect(shown.some((s) => s.command.startsWith('npx kube-tidy plan'))).toBe(true);
    expect(shown.filter((s) => s.command.startsWith('helm install')).length).toBeGreaterThanOrEqual(2);
  });

  it('are each run by a test or a script', () => {
    const uncovered = shown.filter((s) => !coveredBy(s.command, r)).map((s) => `${s.file}:${s.line} ${s.command}`);
    expect(uncovered).toEqual([]);
  });

  it("the README's two commands come first, and CI runs the second", () => {
    const readme = read('README.md');
    const spans = [...readme.matchAll(/`([^`\n]*\b(?:npm|npx|helm|kube-tidy)\b[^`\n]*)`/g)].map((m) => m[1]!);
    const commands = spans.filter((s) => /^(\. infra|npx |npm |helm |kube-tidy )/.test(s));
    expect(commands.slice(0, 2)).toEqual(['. infra/local/node22.sh && npm ci && npm run demo', '. infra/local/node22.sh && npm ci && npm test']);
    expect(read('.ci/run')).toContain('. infra/local/node22.sh && npm ci && npm test');
  });
});

describe('the command check', () => {
  const r: Runners = {
    scripts: new Set(['demo', 'bench']),
    benches: new Set(['scale']),
    helmInstalls: new Set(['helm install a b']),
    testLiterals: [literals("cli('plan', '--pods', p, '--against', old)")],
  };

  it('reads shell blocks only, continuations joined, comments and prompts dropped', () => {
    const md =
      '```sh\n# npm run nope\nnpm run demo   # comment\nhelm install a \\\n  b\n```\n```yaml\nnpm run yaml\n```\n```console\n$ npx kube-tidy plan --pods x\n```';
    expect(shownCommands('x.md', md).map((s) => [s.line, s.command])).toEqual([
      [3, 'npm run demo'],
      [4, 'helm install a b'],
      [11, 'npx kube-tidy plan --pods x'],
    ]);
  });

  it('takes the command and its flags, optional ones included', () => {
    expect(cliShape('npx kube-tidy plan --pods p [--nodes n] --protected-namespaces=-kube-system -o json')).toEqual({
      sub: ['plan'],
      flags: ['--pods', '--nodes', '--protected-namespaces', '-o'],
    });
  });

  it('refuses what nothing runs', () => {
    expect(coveredBy('npm run demo', r)).toBeDefined();
    expect(coveredBy('npm run gone', r)).toBeUndefined();
    expect(coveredBy('npm run bench scale -- 5', r)).toBeDefined();
    expect(coveredBy('npm run bench nope', r)).toBeUndefined();
    expect(coveredBy('helm install a c', r)).toBeUndefined();
    expect(coveredBy('npx kube-tidy plan --pods d --against o', r)).toBeDefined();
    expect(coveredBy('npx kube-tidy plan --pods d --max-new 3', r)).toBeUndefined();
    expect(coveredBy('npx kube-tidy run --pods d', r)).toBeUndefined();
  });
});

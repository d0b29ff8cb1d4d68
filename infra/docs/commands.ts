// The commands the docs show, and whether something runs them: a doc cannot drift from the code
// if every `kube-tidy`, `npm run` and `helm install` line it shows is one a test or a script runs.
// What counts as run, per kind:
//   npm run NAME      a script of package.json (`npm run bench NAME`: a benchmark test/bench/run.ts has)
//   helm install ...  one of the README's "Helm (either mode)" lines, which
//                     test/integration/helm/bare-cluster.test.ts runs as written
//   kube-tidy SUB ... a test passes the same command and every flag the line shows
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Shown {
  file: string;
  line: number;
  command: string;
}

const SHELL = /^\s*(```|~~~)\s*(sh|bash|shell|console)\s*$/;
const END = /^\s*(```|~~~)\s*$/;
const RUNS = /^(npx kube-tidy|kube-tidy|npm run|helm install)\b/;

/** Every command in a shell block of `text` that invokes kube-tidy, an npm script or helm install. */
export function shownCommands(file: string, text: string): Shown[] {
  const out: Shown[] = [];
  let inShell = false;
  let fenced = false;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (!fenced && SHELL.test(raw)) [fenced, inShell] = [true, true];
    else if (fenced && END.test(raw)) [fenced, inShell] = [false, false];
    else if (!fenced && /^\s*(```|~~~)/.test(raw)) [fenced, inShell] = [true, false];
    else if (inShell) {
      let command = raw;
      const start = i;
      while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1)} ${lines[++i]!.trim()}`;
      for (const part of command.replace(/^\s*\$\s+/, '').split(/&&|;|\|/)) {
        const c = part.replace(/\s+#.*$/, '').trim();
        if (RUNS.test(c)) out.push({ file, line: start + 1, command: c.replace(/\s+/g, ' ') });
      }
    }
  }
  return out;
}

/** The CLI's subcommand words and the flags a line passes (optional ones in brackets too). */
export function cliShape(command: string): { sub: string[]; flags: string[] } {
  const words = command.replace(/^npx /, '').replace(/[[\]]/g, ' ').split(/\s+/).slice(1);
  const sub = words[0] === 'policy' ? words.slice(0, 2) : words.slice(0, 1);
  const flags = words.filter((w) => /^--?[a-z]/.test(w)).map((w) => w.split('=')[0]!);
  return { sub, flags: [...new Set(flags)] };
}

export interface Runners {
  scripts: Set<string>;
  benches: Set<string>;
  helmInstalls: Set<string>;
  /** Each test file's string literals. */
  testLiterals: Set<string>[];
}

/** Why `command` is run by something, or undefined when nothing runs it. */
export function coveredBy(command: string, r: Runners): string | undefined {
  if (command.startsWith('npm run ')) {
    const [name, arg] = command.split(/\s+/).slice(2);
    if (!name || !r.scripts.has(name)) return undefined;
    if (name === 'bench' && arg && arg !== '--' && !r.benches.has(arg)) return undefined;
    return name === 'bench' ? `test/bench/run.ts (${arg ?? 'all'})` : `package.json script ${name}`;
  }
  if (command.startsWith('helm install ')) return r.helmInstalls.has(command) ? 'test/integration/helm/bare-cluster.test.ts' : undefined;
  const { sub, flags } = cliShape(command);
  const needed = [...sub, ...flags];
  return r.testLiterals.some((lits) => needed.every((w) => lits.has(w))) ? 'a CLI test with the same command and flags' : undefined;
}

/** The string literals of a source file ('...', "...", and the words of `...` without ${}). */
export function literals(source: string): Set<string> {
  const out = new Set<string>();
  for (const m of source.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"/g)) out.add((m[1] ?? m[2])!);
  for (const m of source.matchAll(/`([^`]*)`/g)) for (const w of m[1]!.replace(/\$\{[^}]*\}/g, ' ').split(/\s+/)) if (w) out.add(w);
  return out;
}

/** The README's `helm install` lines in its "Helm (either mode)" block, continuations joined (as the test reads them). */
export function readmeHelmInstalls(root: string): Set<string> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split(/^### Helm \(either mode\)$/m)[1]?.split(/^### /m)[0] ?? '';
  return new Set(
    shownCommands('README.md', section)
      .map((s) => s.command)
      .filter((c) => c.startsWith('helm install ')),
  );
}

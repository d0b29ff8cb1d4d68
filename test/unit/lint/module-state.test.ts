// The module-state rule (infra/lint/module-state.js), checked against code that breaks it: a
// library module keeps no process state and never ends the process; a host may do both.
import { ESLint } from 'eslint';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MODULE_STATE_EXCEPTIONS } from '../../../infra/lint/module-state.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'kube-tidy/module-state').map((m) => m.message);
}

describe('no process state in the library rooms', () => {
  it.each([
    ['a `let` at module scope', 'export let current: number | undefined;\nexport const set = (n: number) => void (current = n);'],
    ['a `var` at module scope', 'var count = 0;\nexport const next = () => ++count;'],
    ['an exported `let`', 'export let sampled = false;'],
    ['a Set that grows', 'const told = new Set<string>();\nexport const tell = (k: string) => void told.add(k);'],
    ['a Map cache', 'const cache = new Map<string, Promise<boolean>>();\nexport const get = (k: string) => cache.get(k);'],
    ['a Map typed as a Map', 'const cache: Map<string, number> = new Map();\nexport const get = (k: string) => cache.get(k);'],
    ['process.exit', 'export const stop = () => process.exit(1);'],
    ['process.exitCode', 'export const fail = () => void (process.exitCode = 2);'],
  ])('%s fails lint in shared/, functions/ and a family core', async (_what, code) => {
    for (const file of ['shared/notify/state-probe.ts', 'functions/state-probe.ts', 'shared/evacuation/core/state-probe.ts']) {
      expect((await problems(file, code)).length, file).toBeGreaterThan(0);
    }
  });

  it.each([
    ['a constant table typed read-only', "export const TERMINAL: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);"],
    ['a Map typed read-only', "export const PRIORITY: ReadonlyMap<string, number> = new Map([['a', 1]]);"],
    ['a `let` inside a function', 'export function f() {\n  let n = 0;\n  return () => ++n;\n}'],
    ['state built per call and returned', 'export const cacheOf = () => new Map<string, number>();'],
    ['a `const` value', 'export const LIMIT = 5;'],
  ])('%s is fine', async (_what, code) => {
    expect(await problems('shared/notify/state-probe.ts', code)).toEqual([]);
  });

  it('a host may keep process state and end the process', async () => {
    expect(await problems('shared/hosts/cli/state-probe.ts', 'let code = 0;\nexport const done = () => process.exit(code);')).toEqual([]);
  });

  it('a test file is not a library module', async () => {
    expect(await problems('shared/notify/state-probe.test.ts', 'let sent: string[] = [];\nexport const reset = () => void (sent = []);')).toEqual([]);
  });

  it('each named exception is a file that exists, with its reason; and it is the only place its state is allowed', async () => {
    for (const e of MODULE_STATE_EXCEPTIONS) {
      expect(existsSync(`${ROOT}${e.file}`), e.file).toBe(true);
      expect(e.reason.length, e.file).toBeGreaterThan(20);
      expect(await problems(e.file, 'let x = 0;\nexport const y = () => ++x;')).toEqual([]);
    }
    // None: the metrics recorder, the last exception, is built by its host and carried by the handles.
    expect(MODULE_STATE_EXCEPTIONS.map((e) => e.file)).toEqual([]);
  });

  it('the metrics recorder is not excepted: process state at its module level fails', async () => {
    const found = await problems('shared/metrics/recorder.ts', 'let pending: number[] = [];\nexport const record = (n: number) => void pending.push(n);');
    expect(found.join('\n')).toContain('`let` at module scope is process state');
  });
});

// The floors are declared once, as data (infra/lint/floors.js), and copied into ARCHITECTURE.md
// for a reader: this test fails when the two differ, and when the data stops describing the
// code (a file of shared/ or functions/ with no floor, a room that matches no file any more).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { floorOf, globRegExp } from '../../../infra/lint/floor-order.js';
import { EXCEPTIONS, FLOORS, type Floor } from '../../../infra/lint/floors.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** A floor as ARCHITECTURE.md "The boundaries" item 3 lists it. */
const docLine = (f: Floor, i: number): string =>
  `   - **${i} ${f.name}**: ${f.rooms.map((r) => `\`${r}\``).join(', ')}. ${f.why.charAt(0).toUpperCase()}${f.why.slice(1)}.`;

function modules(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) modules(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) out.push(relative(ROOT, path));
  }
  return out;
}

describe('the floors of infra/lint/floors.js', () => {
  it('ARCHITECTURE.md lists them as the data declares them, in order', () => {
    const doc = readFileSync(`${ROOT}ARCHITECTURE.md`, 'utf8').split('\n');
    const listed = doc.filter((l) => /^ {3}- \*\*\d+ /.test(l));
    expect(listed).toEqual(FLOORS.map(docLine));
    expect(doc.join('\n')).toContain(EXCEPTIONS.length === 0 ? 'Named exceptions: none.' : 'Named exceptions:');
  });

  const files = [...modules(join(ROOT, 'shared')), ...modules(join(ROOT, 'functions'))];

  it('every module of shared/ and functions/ stands on a floor', () => {
    expect(files.filter((f) => !floorOf(f))).toEqual([]);
  });

  it('every room matches a module (a moved folder leaves no stale room behind)', () => {
    const rooms = FLOORS.flatMap((f) => f.rooms);
    expect(rooms.filter((r) => !files.some((f) => globRegExp(r).test(f)))).toEqual([]);
  });
});

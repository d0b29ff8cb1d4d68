// An ESLint rule: rooms import downward only. Every import of the project's own modules
// (static, type-only, re-exports, import() and import('...') types) is placed on the floors of
// infra/lint/floors.js; one that reaches a higher floor than the importing file's is reported,
// naming both rooms and floors. A cycle rule alone lets a room lean on one above it as long as
// nothing leans back (kube/names.ts read three families' cores that way), so the order is
// declared once and checked on every import. A file of shared/ or functions/ in no room is
// reported too, so a new folder gets its floor when it is made, not when someone notices.
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXCEPTIONS, FLOORS } from './floors.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A floors.js glob as a regular expression: `**` any depth, `*` one segment's part, `{a,b}` either. */
export function globRegExp(glob) {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '{') out += '(?:';
    else if (c === '}') out += ')';
    else if (c === ',') out += '|';
    else out += c.replace(/[.+?^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

// Read from the top floor down, so a host's core is the host's (floors.js).
const ROOMS = FLOORS.flatMap((floor, level) => floor.rooms.map((glob) => ({ level, floor: floor.name, re: globRegExp(glob) }))).reverse();

/** The floor of a path relative to the root ('shared/kube/names.ts'), or undefined. */
export function floorOf(path) {
  const hit = ROOMS.find((r) => r.re.test(path));
  return hit && { level: hit.level, floor: hit.floor };
}

/** The project file an import names, relative to the root, as TypeScript resolves './x.js'. */
function target(fromAbs, spec) {
  const base = resolve(dirname(fromAbs), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return relative(ROOT, candidates.find((c) => existsSync(c)) ?? candidates[0]);
}

/** The string an import-like node names, or undefined (a computed import()). */
function specOf(node) {
  const s = node.type === 'TSImportType' ? (node.argument?.literal ?? node.argument) : node.source;
  return s && s.type === 'Literal' && typeof s.value === 'string' ? s.value : undefined;
}

const room = (path) => dirname(path);

export default {
  meta: { type: 'problem', docs: { description: 'rooms import downward only (infra/lint/floors.js)' }, schema: [] },
  create(context) {
    const abs = resolve(context.filename);
    const from = relative(ROOT, abs);
    const own = floorOf(from);
    if (!own) {
      return {
        Program: (node) =>
          context.report({
            node,
            message: `${from} is in no room of infra/lint/floors.js: give its folder a floor (or the file, in a folder that stands on several, as policy/ does)`,
          }),
      };
    }
    const check = (node) => {
      const spec = specOf(node);
      if (!spec || !spec.startsWith('.')) return;
      const to = target(abs, spec);
      const theirs = floorOf(to);
      if (!theirs || theirs.level <= own.level) return;
      if (EXCEPTIONS.some((e) => e.from === from && e.to === to)) return;
      context.report({
        node,
        message:
          `${room(from)} (floor ${own.level}, ${own.floor}) imports ${room(to)} (floor ${theirs.level}, ${theirs.floor}) from ${to}: ` +
          'rooms import downward only (infra/lint/floors.js); move what both need down, or invert the call',
      });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
      TSImportType: check,
    };
  },
};

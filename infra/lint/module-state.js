// An ESLint rule: no process state in a module of the library. What a family uses across
// requests (the outbox, the recorder, a sampler, a cache, what it has told) is built by its host
// at start and handed down (a handle, the runtime, a writer's options), so two runtimes in one
// process (tests, a CLI beside a bridge) share nothing by accident and a test needs no reset.
// Reported in shared/ (hosts apart) and functions/:
// - `let` or `var` at module scope;
// - a module-level Map, Set, WeakMap or WeakSet that is not typed read-only (a constant table is
//   declared `ReadonlyMap`/`ReadonlySet`; one that changes is process state);
// - `process.exit` and `process.exitCode`: library code throws, only a host ends the process.
// Named exceptions: MODULE_STATE_EXCEPTIONS below, each with its reason.
import { relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Files allowed module state, and why. Keep it short: each is a debt or a true process
 * singleton. None today: the metrics recorder, the last one, is an object its host builds
 * (metrics/recorder.ts) and the handles carry.
 */
export const MODULE_STATE_EXCEPTIONS = [];

const COLLECTIONS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet']);
const READONLY_TYPES = new Set(['ReadonlyMap', 'ReadonlySet']);

/** Whether a declarator's type annotation says read-only (`ReadonlyMap<...>`, `ReadonlySet<...>`). */
function readonlyTyped(declarator) {
  const t = declarator.id.typeAnnotation?.typeAnnotation;
  return t?.type === 'TSTypeReference' && t.typeName.type === 'Identifier' && READONLY_TYPES.has(t.typeName.name);
}

/** The declaration at module scope, or undefined (inside a function, a block, a class). */
function moduleLevel(node) {
  const parent = node.parent;
  if (parent?.type === 'Program') return node;
  if (parent?.type === 'ExportNamedDeclaration' && parent.parent?.type === 'Program') return node;
  return undefined;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'no module-level mutable state in the library rooms; only hosts exit the process (infra/lint/module-state.js)' },
    schema: [],
  },
  create(context) {
    const file = relative(ROOT, resolve(context.filename));
    const excepted = MODULE_STATE_EXCEPTIONS.some((e) => e.file === file);
    const state = (node, what) =>
      context.report({
        node,
        message: `${what} at module scope is process state: build it in the host (the runtime, a handle) and pass it down (infra/lint/module-state.js)`,
      });
    return {
      VariableDeclaration(node) {
        if (excepted || !moduleLevel(node)) return;
        if (node.kind === 'let' || node.kind === 'var') return state(node, `\`${node.kind}\``);
        for (const d of node.declarations) {
          const init = d.init;
          if (init?.type === 'NewExpression' && init.callee.type === 'Identifier' && COLLECTIONS.has(init.callee.name) && !readonlyTyped(d)) {
            state(d, `a ${init.callee.name} not typed Readonly${init.callee.name.replace('Weak', '')}`);
          }
        }
      },
      MemberExpression(node) {
        if (node.object.type !== 'Identifier' || node.object.name !== 'process' || node.property.type !== 'Identifier') return;
        if (node.property.name !== 'exit' && node.property.name !== 'exitCode') return;
        context.report({
          node,
          message: `process.${node.property.name} in the library: throw, and let the host decide how the process ends (infra/lint/module-state.js)`,
        });
      },
    };
  },
};

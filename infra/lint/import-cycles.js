// An ESLint rule: no import cycle among the project's own modules, type-only imports and
// dynamic import() included. A cycle through a type is still a cycle in the design (a leaf
// room that names a type of a room above it pulls that room's whole neighbourhood along), and
// eslint-plugin-import's no-cycle skips type imports, so the circle through
// metrics/observe -> serve/target -> runtime went unseen. The other files' imports are read
// from disk once per lint run with TypeScript's own import scanner; the file being linted is
// read as ESLint has it (an editor's unsaved text, a test's probe).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ROOMS = ['shared', 'functions', 'infra', 'test'];
const SKIP = new Set(['node_modules', 'dist', '.tmp', 'go']);

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The project's .ts files that `text` (the source of `from`) imports, './x.js' naming x.ts. */
function importsOf(from, text, files) {
  const found = new Set();
  for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!spec.startsWith('.')) continue;
    const base = resolve(dirname(from), spec);
    const hit = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')].find((c) => files.has(c));
    if (hit) found.add(hit);
  }
  return [...found];
}

let graph;
function diskGraph() {
  if (graph) return graph;
  const files = new Set(ROOMS.flatMap((r) => walk(join(ROOT, r), [])));
  graph = { files, edges: new Map([...files].map((f) => [f, importsOf(f, readFileSync(f, 'utf8'), files)])) };
  return graph;
}

/** The shortest way from `file` back to itself, or undefined (breadth first over the imports). */
export function cycleThrough(file, ownImports, edges) {
  const from = new Map();
  const queue = [];
  for (const w of ownImports) {
    if (w === file) return [file, file];
    if (!from.has(w)) {
      from.set(w, file);
      queue.push(w);
    }
  }
  while (queue.length) {
    const v = queue.shift();
    for (const w of edges.get(v) ?? []) {
      if (w === file) {
        const way = [file];
        for (let u = v; u !== file; u = from.get(u)) way.splice(1, 0, u);
        return [...way, file];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return undefined;
}

export default {
  meta: { type: 'problem', docs: { description: 'no import cycle among the project’s modules, type imports included' }, schema: [] },
  create(context) {
    const file = resolve(context.filename);
    const { files, edges } = diskGraph();
    const way = cycleThrough(file, importsOf(file, context.sourceCode.text, files), edges);
    return way ? { Program: (node) => context.report({ node, message: `import cycle: ${way.map((f) => relative(ROOT, f)).join(' -> ')}` }) } : {};
  },
};

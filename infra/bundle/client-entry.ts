// The entry of client.cjs: re-exports exactly the values our code imports from
// @kubernetes/client-node, so esbuild drops the rest of its API and models (the whole package
// is 2.8 MB minified; what we use about half). The names are read from the import
// declarations under functions/ and shared/; a namespace or dynamic import of the package
// could need any name, so it stops the build instead.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const PACKAGE = '@kubernetes/client-node';
const NAMED = /import\s+(type\s+)?\{([^}]*)\}\s*from\s*['"]@kubernetes\/client-node['"]/g;
const OTHER =
  /import\s*\*\s*as\s+\w+\s+from\s*['"]@kubernetes\/client-node['"]|import\s*\(\s*['"]@kubernetes\/client-node['"]\s*\)|import\s+\w+\s*(,|from)\s*['"]?@kubernetes\/client-node/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The value names imported from the package under `dirs` (type-only imports left out). */
export function clientImports(dirs: string[]): string[] {
  const names = new Set<string>();
  for (const file of dirs.flatMap(sources)) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes(PACKAGE)) continue;
    if (OTHER.test(text)) throw new Error(`${file}: import named values from ${PACKAGE}, so the bundle keeps only what is used`);
    for (const [, typeOnly, list] of text.matchAll(NAMED)) {
      if (typeOnly) continue;
      for (const item of list!.split(',').map((s) => s.trim())) {
        if (!item || item.startsWith('type ')) continue;
        names.add(item.split(/\s+as\s+/)[0]!);
      }
    }
  }
  return [...names].sort();
}

export function clientEntry(dirs: string[]): string {
  return `export { ${clientImports(dirs).join(', ')} } from '${PACKAGE}';\n`;
}

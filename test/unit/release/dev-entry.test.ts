// The development command the docs give, `npx functions-framework --target=<name>` from the
// repository's root: with no --source the framework resolves the folder itself (package.json's
// "main", then index.js), else its function.js. The entry is function.js, not "main", because npm
// packs the file "main" names into the CLI's package (test/integration/package/ checks the files).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { FUNCTIONS_BUILT } from '../../harness/function-process.js';

describe("functions-framework's development entry", () => {
  it('is not package.json "main" (npm would pack it), and the root resolves to no other module first', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.main).toBeUndefined();
    // What the framework tries before function.js: require.resolve of the folder.
    expect(() => createRequire(join(REPO_ROOT, 'x.js')).resolve(REPO_ROOT)).toThrow(/Cannot find module/);
  });

  it('is function.js at the root, which loads the built framework entry (what the demo serves)', () => {
    const text = readFileSync(join(REPO_ROOT, 'function.js'), 'utf8');
    const imports = [...text.matchAll(/^import '([^']+)';$/gm)].map((m) => resolve(REPO_ROOT, m[1]!));
    expect(imports).toEqual([resolve(FUNCTIONS_BUILT)]);
  });
});

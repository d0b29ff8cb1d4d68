// The production bundle: functions/server.ts and everything it imports, as ESM for
// Node 22 (app.mjs), so the image needs no node_modules and a cold start resolves no
// packages, behind a small entry (server.mjs, from loader.mjs) that turns on the compile
// cache first, plus chunks/ loaded on first need. Usage: `npm run bundle` ->
// dist/bundle/{server.mjs, app.mjs, chunks/, app.mjs.map, meta.json}.
import { copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUNDLE_DIR = join(ROOT, 'dist', 'bundle');
export const BUNDLE_FILE = join(BUNDLE_DIR, 'server.mjs');
/** The Node major the bundle is built for; serverless.yml's runtime and the Dockerfile say the same (tested). */
export const BUNDLE_TARGET = 'node22';

export interface BundleResult {
  file: string;
  bytes: number;
  ms: number;
}

/** `outfile` is the entry (server.mjs); the bundle lands beside it as app.mjs, plus chunks/. */
export async function bundle(outfile = BUNDLE_FILE): Promise<BundleResult> {
  const started = Date.now();
  // A fresh directory: no stale map, licence file or compile cache from an older build.
  rmSync(dirname(outfile), { recursive: true, force: true });
  mkdirSync(dirname(outfile), { recursive: true });
  copyFileSync(join(ROOT, 'infra', 'bundle', 'loader.mjs'), outfile);
  const app = join(dirname(outfile), 'app.mjs');
  const result = await build({
    entryPoints: { app: join(ROOT, 'functions', 'server.ts') },
    outdir: dirname(outfile),
    // Code split at the dynamic imports: the Kubernetes client and the targets a process does
    // not serve land in chunks/ and are read only when first needed, so a cold start neither
    // parses nor evaluates them.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLE_TARGET,
    minify: true,
    // Stack traces in logs still name our files and lines.
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'linked',
    // Express, body-parser and friends are CommonJS and call require() for Node's builtins;
    // an ESM file has no require, so give the bundle one.
    banner: { js: "import { createRequire as __ktCreateRequire } from 'node:module'; const require = __ktCreateRequire(import.meta.url);" },
    // tr46 and whatwg-url ask for "punycode", which Node resolves to its deprecated builtin
    // (a DEP0040 warning at every start); the npm package of the same code is installed.
    alias: { punycode: 'punycode/' },
    logLevel: 'warning',
  });
  writeFileSync(join(dirname(outfile), 'meta.json'), JSON.stringify(result.metafile));
  return { file: outfile, bytes: statSync(app).size, ms: Date.now() - started };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await bundle();
  console.log(`${relative(ROOT, r.file)}: ${(r.bytes / 1024).toFixed(0)} KiB in ${r.ms} ms`);
}

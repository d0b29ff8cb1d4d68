// The production bundle: shared/hosts/server/server.ts and everything it imports, as CommonJS for Node 22,
// so the image needs no node_modules and a cold start resolves no packages. app.cjs holds all
// but the Kubernetes client, which is client.cjs, read when first required (podTerminated's
// common event never needs it). Beside them: the entry (server.cjs, from loader.cjs), which
// runs both from V8 code caches per target, and warm.cjs, which writes those caches (the image
// runs it once). Usage: `npm run bundle` -> dist/bundle/{server.cjs, app.cjs, client.cjs,
// warm.cjs, maps, meta.json}; `npm run bundle -- --warm` also warms the caches with the Node
// running the command.
//
// Why CommonJS: an ESM bundle paid for the module loader on every chunk and for
// `import ... from 'node:http'`, whose ESM facade reads every export of node:http and so loads
// Node's internal undici (about 15 ms); `require` does neither. The targets a process does not
// serve are still evaluated only on first need (esbuild turns their dynamic imports into lazy
// initialisers), and with the code cache their source is not even parsed.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { TARGETS } from '../../functions/index.js';
import { clientEntry } from './client-entry.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUNDLE_DIR = join(ROOT, 'dist', 'bundle');
export const BUNDLE_FILE = join(BUNDLE_DIR, 'server.cjs');
/** Packages bundled into a file of their own, by name; written into the entry (loader.cjs). */
export const SEPARATE = { '@kubernetes/client-node': 'client' } as const;

/** The Node major the bundle is built for; serverless.yml's runtime and the Dockerfile say the same (tested). */
export const BUNDLE_TARGET = 'node22';

export interface BundleResult {
  /** The entry, server.cjs. */
  file: string;
  /** Size of app.cjs, what every start reads. */
  bytes: number;
  /** Size of client.cjs, read on first need. */
  clientBytes: number;
  ms: number;
}

/** What every bundle kube-tidy ships is built with: the image's and the npm package's CLI (cli.ts). */
export const COMMON_BUILD: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: BUNDLE_TARGET,
  minify: true,
  // tr46 and whatwg-url ask for "punycode", which Node resolves to its deprecated builtin
  // (a DEP0040 warning at every start); the npm package of the same code is installed.
  alias: { punycode: 'punycode/' },
  logLevel: 'warning',
};

/** /bin/descheduler's build: one file, the client inside, executable through its shebang. */
const deschedulerBuild = (outfile: string): BuildOptions => ({
  ...COMMON_BUILD,
  entryPoints: [join(ROOT, 'shared', 'hosts', 'descheduler', 'main.ts')],
  outfile,
  banner: { js: '#!/usr/bin/env node' },
  legalComments: 'none',
});

/** Only /bin/descheduler (descheduler.cjs), as the image has it: what the descheduler's e2e tests run. */
export async function bundleDescheduler(outfile: string): Promise<string> {
  await build(deschedulerBuild(outfile));
  chmodSync(outfile, 0o755);
  return outfile;
}

/** `outfile` is the entry (server.cjs); app.cjs, client.cjs, warm.cjs, standalone.cjs, release-check.cjs and descheduler.cjs land beside it. */
export async function bundle(outfile = BUNDLE_FILE): Promise<BundleResult> {
  const started = Date.now();
  const dir = dirname(outfile);
  // A fresh directory: no stale map, licence file or code cache from an older build.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const app = join(dir, 'app.cjs');
  const client = join(dir, 'client.cjs');
  const [result] = await Promise.all([
    build({
      ...COMMON_BUILD,
      entryPoints: [join(ROOT, 'shared', 'hosts', 'server', 'server.ts')],
      outfile: app,
      external: Object.keys(SEPARATE),
      // For mapping a production stack trace back to the source by hand: the image does not
      // ship the maps, and Node does not apply them to code run through vm.Script.
      sourcemap: 'linked',
      metafile: true,
      legalComments: 'linked',
    }),
    build({
      ...COMMON_BUILD,
      stdin: { contents: clientEntry([join(ROOT, 'functions'), join(ROOT, 'shared')]), resolveDir: ROOT, sourcefile: 'client.ts' },
      outfile: client,
      sourcemap: 'linked',
      legalComments: 'linked',
    }),
    // The chart's standalone mode (infra/helm): one file, the client inside (it watches from
    // the start, so there is nothing to load lazily).
    build({
      ...COMMON_BUILD,
      entryPoints: [join(ROOT, 'shared', 'hosts', 'standalone', 'main.ts')],
      outfile: join(dir, 'standalone.cjs'),
      legalComments: 'none',
    }),
    // /bin/descheduler: the descheduler's command (hosts/descheduler), run as the descheduler's
    // image runs its binary: an executable file (mode set below; COPY keeps it) found by its shebang.
    build(deschedulerBuild(join(dir, 'descheduler.cjs'))),
    // The chart's `helm test` for standalone mode (templates/tests): the Lease and /metrics.
    build({
      ...COMMON_BUILD,
      entryPoints: [join(ROOT, 'shared', 'hosts', 'standalone', 'release-check.ts')],
      outfile: join(dir, 'release-check.cjs'),
      legalComments: 'none',
    }),
    build({
      ...COMMON_BUILD,
      entryPoints: [join(ROOT, 'infra', 'bundle', 'warm.ts')],
      outfile: join(dir, 'warm.cjs'),
      define: { __KUBE_TIDY_TARGETS__: JSON.stringify(Object.keys(TARGETS)) },
      legalComments: 'none',
    }),
  ]);
  chmodSync(join(dir, 'descheduler.cjs'), 0o755);
  writeFileSync(join(dir, 'meta.json'), JSON.stringify(result.metafile));
  const id = createHash('sha256').update(readFileSync(app)).update(readFileSync(client)).digest('hex').slice(0, 16);
  const loader = readFileSync(join(ROOT, 'infra', 'bundle', 'loader.cjs'), 'utf8');
  const entry = loader.replace('__KUBE_TIDY_BUILD__', id).replace(/^const SEPARATE = .*;$/m, `const SEPARATE = ${JSON.stringify(SEPARATE)};`);
  if (!entry.includes(`const SEPARATE = ${JSON.stringify(SEPARATE)};`)) throw new Error('loader.cjs has no SEPARATE line to write');
  writeFileSync(outfile, entry);
  return { file: outfile, bytes: statSync(app).size, clientBytes: statSync(client).size, ms: Date.now() - started };
}

/** Runs warm.cjs with `node` (the Node that will serve): code-cache/ then holds one cache per target. */
export function warmCodeCache(entry: string, node = process.execPath): void {
  execFileSync(node, [join(dirname(entry), 'warm.cjs')], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await bundle();
  console.log(`${relative(ROOT, r.file)}: app.cjs ${(r.bytes / 1024).toFixed(0)} KiB, client.cjs ${(r.clientBytes / 1024).toFixed(0)} KiB in ${r.ms} ms`);
  if (process.argv.includes('--warm')) {
    const warmed = Date.now();
    warmCodeCache(r.file);
    console.log(`code caches warmed in ${Date.now() - warmed} ms (${process.version})`);
  }
}

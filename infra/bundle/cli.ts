// The npm package's program: the CLI (shared/hosts/cli/main.ts) bundled for Node 22, so an
// install pulls no dependencies and a start resolves no packages. Two files, as the image's
// bundle: kube-tidy.cjs, everything the offline commands need, and kube-client.cjs, the
// Kubernetes client, required only by the commands that talk to a cluster (plan --kubeconfig,
// run, bridge, descheduler), so `--help` and `policy check` never parse its 1.4 MB.
// Usage: `npm run bundle:cli` -> dist/cli/{kube-tidy.cjs, kube-client.cjs, THIRD-PARTY-NOTICES.txt};
// `npm ci`, `npm pack` and `npm publish` run it first (package.json's "prepare") and "files" ships that folder only.
import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { COMMON_BUILD } from './build.js';
import { clientEntry } from './client-entry.js';
import { bundledPackages, noticesText } from './notices.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI_DIR = join(ROOT, 'dist', 'cli');
/** The file package.json's "bin" names (the package test checks them equal). */
export const CLI_FILE = 'kube-tidy.cjs';
/** The licences of every package the two files carry (notices.ts). */
export const NOTICES_FILE = 'THIRD-PARTY-NOTICES.txt';
const CLIENT_FILE = 'kube-client.cjs';

const common: BuildOptions = {
  ...COMMON_BUILD,
  // The licences go in whole into NOTICES_FILE; the comments inline would say less.
  legalComments: 'none',
  metafile: true,
};

/** The client's import becomes a require of the file beside the program, read on first need. */
const clientBeside: Plugin = {
  name: 'kube-client-beside',
  setup(b) {
    b.onResolve({ filter: /^@kubernetes\/client-node$/ }, () => ({ path: `./${CLIENT_FILE}`, external: true }));
  },
};

// main.ts runs as a program when import.meta.url is the file node was asked to run, or when it
// is started through a link named kube-tidy (npm's bin); CommonJS has no import.meta, so the
// bundle gets its own file's URL. Node's compile cache (as TypeScript's own bin enables it)
// keeps the compiled code between starts in the OS's temporary directory.
// (The entry's own #! line comes first: esbuild keeps it above the banner.)
const BANNER = [
  "try { require('node:module').enableCompileCache?.(); } catch {}",
  "const __kubeTidyUrl = require('node:url').pathToFileURL(__filename).href;",
].join('\n');

export interface CliBundle {
  dir: string;
  /** Size of kube-tidy.cjs, what every start reads. */
  bytes: number;
  /** Size of kube-client.cjs, read by the commands that talk to a cluster. */
  clientBytes: number;
  ms: number;
}

export async function bundleCli(dir = CLI_DIR): Promise<CliBundle> {
  const started = Date.now();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const program = join(dir, CLI_FILE);
  const client = join(dir, CLIENT_FILE);
  const built = await Promise.all([
    build({
      ...common,
      entryPoints: [join(ROOT, 'shared', 'hosts', 'cli', 'main.ts')],
      outfile: program,
      banner: { js: BANNER },
      define: { 'import.meta.url': '__kubeTidyUrl' },
      plugins: [clientBeside],
    }),
    build({
      ...common,
      stdin: { contents: clientEntry([join(ROOT, 'functions'), join(ROOT, 'shared')]), resolveDir: ROOT, sourcefile: 'client.ts' },
      outfile: client,
    }),
  ]);
  chmodSync(program, 0o755);
  writeFileSync(
    join(dir, NOTICES_FILE),
    noticesText(
      bundledPackages(
        ROOT,
        built.map((b) => b.metafile!),
      ),
    ),
  );
  return { dir, bytes: statSync(program).size, clientBytes: statSync(client).size, ms: Date.now() - started };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await bundleCli();
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(`${relative(ROOT, join(r.dir, CLI_FILE))}: ${kib(r.bytes)}, ${CLIENT_FILE} ${kib(r.clientBytes)} in ${r.ms} ms`);
}

// The two ways scale-snapshot.ts runs a sweep process (issue 35), each on the sweep's Node 22
// with exactly the environment it is given (plus PATH), so the pid measured is the server's:
//   bundle  the production bundle, as the image runs it (scale.ts `bundled`): the sweep's
//           ServiceAccount, the image's heap limit.
//   dev     the README's development command, `npx functions-framework --target=sweep` over
//           the tsc build in dist/ (package.json "main"), with functions-framework's own main
//           run directly (npx would be the pid measured otherwise) and the cluster's admin
//           kubeconfig, as a developer's shell has: the outside harness of issue 35.
import { execFileSync, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { BUNDLE_FILE } from '../../../infra/bundle/build.js';
import { IMAGE_NODE_OPTIONS } from '../../../infra/bundle/heap.js';
import { node22 } from '../../../infra/bundle/node22.js';
import type { Cluster } from '../../harness/index.js';
import { freePorts } from '../../harness/ports.js';
import { bundled } from '../scale.js';
import { restoredIdentities } from './snapshot.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FRAMEWORK = `${ROOT}node_modules/@google-cloud/functions-framework/build/src/main.js`;
/** package.json "main": what `npx functions-framework` loads. */
export const DIST_ENTRY = `${ROOT}dist/shared/hosts/server/framework-entry.js`;

export interface SweepProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** How an experiment starts its sweep. */
export interface SweepHarness {
  /** What ran, for the result. */
  runs: string;
  /** The heap limit (NODE_OPTIONS); undefined: none, as a developer's shell. */
  nodeOptions: string | undefined;
  /** The kubeconfig the sweep gets. */
  kubeconfig(cluster: Cluster): Promise<string>;
  start(env: Record<string, string>): Promise<SweepProcess>;
  /** The file the CPU profile's frames are mapped through (cpu-profile.ts). */
  code: string;
}

/** The production bundle (`file`: another build of it, e.g. SCALE_BASELINE_BUNDLE) as the sweep's ServiceAccount. */
export const bundleHarness = (file = BUNDLE_FILE): SweepHarness => ({
  runs: `production bundle ${file === BUNDLE_FILE ? '(this tree)' : file}, the sweep's ServiceAccount`,
  nodeOptions: IMAGE_NODE_OPTIONS,
  kubeconfig: async (cluster) => (await restoredIdentities(cluster)).kubeconfig('sweep'),
  start: (env) => bundled(env, file),
  code: file,
});

/** functions-framework over dist/ with the admin kubeconfig; `nodeOptions`: a heap limit, or none. */
export const devHarness = (nodeOptions: string | undefined): SweepHarness => ({
  runs: 'functions-framework --target=sweep over dist/ (the README development command), admin kubeconfig',
  nodeOptions,
  kubeconfig: async (cluster) => cluster.kubeconfigPath,
  start: (env) => devTarget('sweep', env),
  code: DIST_ENTRY,
});

/** `npm run build`: dist/ from the tree as it is (the code measured is the code at this moment). */
export function buildDist(): void {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** `npx functions-framework --target=<target>` over dist/ (functions-framework's main run directly), with exactly `env` (plus PATH). */
export async function devTarget(target: string, env: Record<string, string>): Promise<SweepProcess> {
  const port = (await freePorts(1))[0]!;
  // Its log lines go nowhere (written all the same): the bench reads the answers, not the log.
  const child = spawn(node22(), [FRAMEWORK, `--target=${target}`, `--port=${port}`, `--source=${DIST_ENTRY}`], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + String(d)).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  // A TCP connect, not a request: the process sees no request but the measured ones.
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`functions-framework --target=${target} did not listen on ${port}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

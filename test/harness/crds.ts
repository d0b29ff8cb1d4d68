// Installing CRDs with the cluster's own kubectl: server-side apply, because the Kueue and
// Knative CRDs are too large for client-side apply's last-applied annotation.
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fetchOpenReportsCrds } from '../../infra/local/openreports/build.js';
import { binPath } from '../../infra/local/versions.js';

const run = promisify(execFile);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A directory of ../shared/crds beside the checkout (CI clones main with shared/ beside it). */
export function sharedCrdsDir(name: string): string {
  return resolve(repoRoot, '..', 'shared', 'crds', name);
}

export async function kubectl(cluster: { kubeconfigPath: string }, args: string[]): Promise<string> {
  const { stdout } = await run(binPath('kubectl'), [`--kubeconfig=${cluster.kubeconfigPath}`, ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

export async function installCrds(cluster: { kubeconfigPath: string }, dir: string): Promise<void> {
  await kubectl(cluster, ['apply', '--server-side', '--force-conflicts', '-f', dir]);
  // `kubectl wait` gives up at once ("status.conditions accessor error: <nil>") on a CRD whose
  // status the API server has not written yet, which a busy machine makes likely: asked again
  // until the same 60 s are up.
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      await kubectl(cluster, ['wait', '--for=condition=Established', `--timeout=${Math.max(1, Math.ceil((until - Date.now()) / 1000))}s`, '-f', dir]);
      return;
    } catch (e) {
      if (!/accessor error/.test(String((e as { stderr?: string }).stderr ?? e)) || Date.now() >= until) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * The OpenReports CRDs (Report, ClusterReport) from their Go module, fetched into the cache by
 * `npm run openreports:fetch` (fetched here when missing), installed into `cluster`: idempotent,
 * so each file that needs them installs them into the shared cluster itself.
 */
export async function installOpenReportsCrds(cluster: { kubeconfigPath: string }): Promise<void> {
  await installCrds(cluster, fetchOpenReportsCrds());
}

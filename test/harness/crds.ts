// Installing CRDs with the cluster's own kubectl: server-side apply, because the Kueue and
// Knative CRDs are too large for client-side apply's last-applied annotation.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fetchCrds } from '../../infra/local/crds/fetch.js';
import type { CrdSetName } from '../../infra/local/crds/sources.js';
import { binPath } from '../../infra/local/versions.js';
import { insideTreeOrCache } from './inside-tree.js';

const run = promisify(execFile);

/**
 * The upstream CRDs of a set (infra/local/crds/sources.ts: `kueue`, `knative`, `openreports`)
 * from their Go modules, fetched into the cache by `npm run crds:fetch` (here when missing).
 */
export function upstreamCrdsDir(name: CrdSetName): string {
  return fetchCrds(name);
}

export async function kubectl(cluster: { kubeconfigPath: string }, args: string[]): Promise<string> {
  const { stdout } = await run(binPath('kubectl'), [`--kubeconfig=${cluster.kubeconfigPath}`, ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

export async function installCrds(cluster: { kubeconfigPath: string }, dir: string): Promise<void> {
  insideTreeOrCache(dir);
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
 * The OpenReports CRDs (Report, ClusterReport) from their Go module, installed into `cluster`:
 * idempotent, so each file that needs them installs them into the shared cluster itself.
 */
export async function installOpenReportsCrds(cluster: { kubeconfigPath: string }): Promise<void> {
  await installCrds(cluster, upstreamCrdsDir('openreports'));
}

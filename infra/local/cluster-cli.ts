// npm run cluster:up [name] / npm run cluster:down [name]: a local control plane that
// outlives the command. State lives in <cache>/kube-tidy/clusters/<name>/; `up` reuses a
// healthy cluster and always prints the kubeconfig path as its last line.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster } from '../../test/harness/cluster.js';
import { kubectl } from '../../test/harness/crds.js';
import { killGroups, recordedPids } from '../../test/harness/processes.js';
import { cacheRoot } from './versions.js';

const [command, name = 'dev'] = process.argv.slice(2);
const dir = join(cacheRoot(), 'clusters', name);
const kubeconfigPath = join(dir, 'kubeconfig');

async function healthy(): Promise<boolean> {
  if (!existsSync(join(dir, 'state.json'))) return false;
  try {
    return (await kubectl({ kubeconfigPath }, ['get', '--raw', '/readyz', '--request-timeout=5s'])).trim() === 'ok';
  } catch {
    return false;
  }
}

async function down(): Promise<void> {
  await killGroups(recordedPids(dir));
  rmSync(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  if (command === 'up') {
    if (await healthy()) {
      console.log(`cluster ${name} already running`);
    } else {
      await down(); // whatever a crashed or half-started run left behind
      const cluster = await startCluster({ name, dir, persistent: true, kwokNodes: 2 });
      console.log(`cluster ${name} up in ${(cluster.readyMs / 1000).toFixed(1)} s; logs in ${join(dir, 'logs')}`);
      console.log(`export KUBECONFIG=${kubeconfigPath}  # or: npm run cluster:down`);
    }
    console.log(kubeconfigPath);
  } else if (command === 'down') {
    const pids = recordedPids(dir);
    await down();
    console.log(pids.length ? `cluster ${name} stopped` : `cluster ${name} was not running`);
  } else {
    console.error('usage: cluster-cli.ts up|down [name]');
    process.exitCode = 2;
  }
}

main().then(
  () => process.exit(),
  (error: unknown) => {
    console.error((error as Error).message);
    process.exit(1);
  },
);

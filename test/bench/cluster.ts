// Each bench owns its cluster: started before, stopped after, even when the bench throws.
// From a fresh clone the control-plane binaries are built first (npm run controlplane:build:
// about ten minutes once, then cached; under a second when they are there).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BINARIES, binPath } from '../../infra/local/versions.js';
import { startCluster, type Cluster } from '../harness/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function ensureControlPlane(): void {
  if (BINARIES.every((b) => existsSync(binPath(b)))) return;
  const built = spawnSync('npm', ['run', 'controlplane:build'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run controlplane:build failed');
}

export async function withCluster<T>(name: string, kwokNodes: number, run: (cluster: Cluster) => Promise<T>): Promise<T> {
  ensureControlPlane();
  const cluster = await startCluster({ name, kwokNodes });
  try {
    return await run(cluster);
  } finally {
    await cluster.stop();
  }
}

// Each bench owns its cluster: started before, stopped after, even when the bench throws.
// `npm run bench` builds the control-plane binaries first (about ten minutes once, then
// cached), for every bench that starts clusters, this one or not.
import { startCluster, type Cluster, type ClusterOptions } from '../harness/index.js';

export async function withCluster<T>(
  name: string,
  kwokNodes: number,
  run: (cluster: Cluster) => Promise<T>,
  options: Partial<ClusterOptions> = {},
): Promise<T> {
  const cluster = await startCluster({ ...options, name, kwokNodes });
  try {
    return await run(cluster);
  } finally {
    await cluster.stop();
  }
}

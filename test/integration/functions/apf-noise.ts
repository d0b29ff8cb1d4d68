// Another client of one account, for the API Priority and Fairness test: it keeps the account's
// priority level busy, and tells which level the API server put a request in. Plain node:https,
// not kube-tidy's clients: those pause for every 429's Retry-After, and the noise must not pause
// (a paused noise left the sweep a quiet level, so the storm it was there to make did not happen).
import { Agent, request, type RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

export interface ApfNoise {
  /** The UID of the priority level the API server chose for one GET (the X-Kubernetes-PF-PriorityLevel-UID header). */
  levelUid(): Promise<string | undefined>;
  /** `workers` GETs kept in flight until `until()` says stop; answers how many were rejected (429). */
  storm(workers: number, until: () => boolean): Promise<number>;
  close(): void;
}

export async function apfNoise(kubeconfig: string, path: string): Promise<ApfNoise> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const url = new URL(kc.getCurrentCluster()!.server);
  const options: RequestOptions = {};
  await kc.applyToHTTPSOptions(options);
  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: options.ca });
  const get = () =>
    new Promise<{ status: number; level?: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, method: 'GET', headers: options.headers, agent }, (res) => {
        res.resume();
        const level = res.headers['x-kubernetes-pf-prioritylevel-uid'];
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ...(typeof level === 'string' ? { level } : {}) }));
      });
      req.on('error', reject);
      req.end();
    });
  return {
    levelUid: async () => (await get()).level,
    async storm(workers, until) {
      let rejected = 0;
      await Promise.all(
        Array.from({ length: workers }, async () => {
          while (!until()) if ((await get()).status === 429) rejected++;
        }),
      );
      return rejected;
    },
    close: () => agent.destroy(),
  };
}

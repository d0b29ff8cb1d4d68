// KEP-4563's EvictionRequest (lifecycle.k8s.io) is not served by Kubernetes v1.36. Whether it
// is installed is asked once per process (API discovery) and said in every tick's answer, so
// an operator sees why EvictionRequests are not acted on. What kube-tidy will do once it
// exists is in README.md ("Evacuation").
import { ApisApi, type KubeConfig } from '@kubernetes/client-node';
import { clientConfiguration } from '../../kube/clients.js';
import { toKubeError } from '../../kube/index.js';

export const EVICTION_REQUEST_GROUP = 'lifecycle.k8s.io';

let cached: Promise<boolean> | undefined;

export function evictionRequestApiInstalled(kc: KubeConfig, timeoutMs: number): Promise<boolean> {
  // Once per process: no connection worth keeping, but the same timeout as every other request.
  cached ??= new ApisApi(clientConfiguration(kc, { timeoutMs, keepAlive: false }).configuration)
    .getAPIVersions()
    .then((groups) => (groups.groups ?? []).some((g) => g.name === EVICTION_REQUEST_GROUP && g.versions.length > 0))
    .catch((e: unknown) => {
      cached = undefined; // ask again next time
      throw toKubeError(e, 'API discovery');
    });
  return cached;
}

// The API clients the functions use, built from one KubeConfig with a per-request
// timeout. client-node sets none: a request to a half-dead API server would hang until the
// platform kills the function, and the bridge would see a timeout instead of a clean 5xx.
import {
  CoreV1Api,
  createConfiguration,
  EventsV1Api,
  KubeConfig,
  ServerConfiguration,
  type Middleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';

export interface KubeClients {
  core: CoreV1Api;
  events: EventsV1Api;
}

export interface KubeClientOptions {
  /** Per request, including reading the body of a LIST page. Default 30 s. */
  timeoutMs?: number;
}

function timeout(ms: number): Middleware {
  return {
    pre: async (context: RequestContext) => {
      context.setSignal(AbortSignal.timeout(ms));
      return context;
    },
    post: async (context: ResponseContext) => context,
  };
}

export function kubeClients(kc: KubeConfig, { timeoutMs = 30_000 }: KubeClientOptions = {}): KubeClients {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  // What makeApiClient does, plus the timeout middleware.
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    promiseMiddleware: [timeout(timeoutMs)],
  });
  return { core: new CoreV1Api(configuration), events: new EventsV1Api(configuration) };
}

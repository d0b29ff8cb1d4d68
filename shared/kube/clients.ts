// The API clients the functions use, built from one KubeConfig with a per-request
// timeout and kept-alive connections. client-node sets no timeout: a request to a half-dead
// API server would hang until the platform kills the function, and the bridge would see a
// timeout instead of a clean 5xx. Connection reuse: see agent.ts.
import {
  CoreV1Api,
  CustomObjectsApi,
  createConfiguration,
  EventsV1Api,
  KubeConfig,
  PolicyV1Api,
  SchedulingV1Api,
  ServerConfiguration,
  type Middleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { observeApiRequest, observeApiResponse } from '../metrics/observe.js';
import { KeepAliveAgents } from './agent.js';
import { unsafePathProblem } from './path-guard.js';

export interface KubeClients {
  core: CoreV1Api;
  events: EventsV1Api;
  /** PodDisruptionBudgets (policy checks, defragmentation). */
  policy: PolicyV1Api;
  /** PriorityClasses (policy checks). */
  scheduling: SchedulingV1Api;
  /** Any other resource by group/version/plural: KubeVirt, Kueue, job kinds. */
  custom: CustomObjectsApi;
  /** Close the kept-alive connections (tests, CLI exit); the clients stay usable. */
  close(): void;
}

export interface KubeClientOptions {
  /** Per request, including reading the body of a LIST page. Default 30 s. */
  timeoutMs?: number;
  /** Reuse connections (default true). */
  keepAlive?: boolean;
  /** Called as each request is sent (retries included): for counting requests in benchmarks. */
  onRequest?: (method: string, url: string) => void;
}

// One middleware, not two: client-node reverses its middleware array in place on every call.
// `server`: the API server's address, for the metrics (a response carries no URL).
function middleware(ms: number, agents: KeepAliveAgents | undefined, onRequest: KubeClientOptions['onRequest'], server: string): Middleware {
  return {
    pre: async (context: RequestContext) => {
      // The last line of defence for "names are names": names are validated where they
      // arrive, and no request whose path was reshaped by one ('..', an encoded '/') leaves.
      const unsafe = unsafePathProblem(context.getUrl());
      if (unsafe) throw new UnsafeRequestError(`refused to send ${context.getHttpMethod()} ${unsafe}`);
      onRequest?.(context.getHttpMethod(), context.getUrl());
      observeApiRequest(context.getHttpMethod(), server);
      context.setSignal(AbortSignal.timeout(ms));
      const agent = context.getAgent();
      if (agents && agent) context.setAgent(agents.reuse(agent));
      return context;
    },
    post: async (context: ResponseContext) => {
      observeApiResponse(server, context.httpStatusCode);
      return context;
    },
  };
}

/**
 * What makeApiClient builds, plus the middleware: any client-node API class constructed with
 * `configuration` gets the timeout, kept-alive connections and request counting.
 */
export function clientConfiguration(kc: KubeConfig, { timeoutMs = 30_000, keepAlive = true, onRequest }: KubeClientOptions = {}) {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const agents = keepAlive ? new KeepAliveAgents() : undefined;
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    promiseMiddleware: [middleware(timeoutMs, agents, onRequest, cluster.server)],
  });
  return { configuration, server: cluster.server, close: () => agents?.destroy() };
}

export function kubeClients(kc: KubeConfig, options: KubeClientOptions = {}): KubeClients {
  const { configuration, close } = clientConfiguration(kc, options);
  return {
    core: new CoreV1Api(configuration),
    events: new EventsV1Api(configuration),
    policy: new PolicyV1Api(configuration),
    scheduling: new SchedulingV1Api(configuration),
    custom: new CustomObjectsApi(configuration),
    close,
  };
}

/** A request whose path an input changed the shape of: never sent. A bug, or an attack. */
export class UnsafeRequestError extends Error {
  override name = 'UnsafeRequestError';
}

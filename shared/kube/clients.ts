// The API clients the functions use, built from one KubeConfig with a per-request
// timeout and kept-alive connections. client-node sets no timeout: a request to a half-dead
// API server would hang until the platform kills the function, and the bridge would see a
// timeout instead of a clean 5xx. Connection reuse: see agent.ts.
import { sleepLong, timeoutSignal } from '../config/long-timeout.js';
import {
  ApisApi,
  CoreV1Api,
  CustomObjectsApi,
  BatchV1Api,
  AppsV1Api,
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
import { MetricsRecorder } from '../metrics/recorder.js';
import { KeepAliveAgents } from './agent.js';
import { DirectRequests } from './direct.js';
import { DirectPodWrites, DirectPodReads } from './direct-pods.js';
import { DirectObjectReads, DirectObjectWrites, type ObjectDeleter, type ObjectReads } from './direct-objects.js';
import type { PodReader } from './get.js';
import type { PodLister } from './list.js';
import type { PodDeleter, PodEvictor } from './pods.js';
import { classifyKubeError, readRetryPauseMs } from './errors.js';
import { RequestLifecycle } from './request-lifecycle.js';
import { DEFAULT_BURST, DEFAULT_QPS, Throttle } from './throttle.js';

export interface KubeClients {
  core: CoreV1Api;
  events: EventsV1Api;
  /** PodDisruptionBudgets (policy checks, defragmentation). */
  policy: PolicyV1Api;
  /** PriorityClasses (policy checks). */
  scheduling: SchedulingV1Api;
  /** Any other resource by group/version/plural: KubeVirt, Kueue, job kinds. */
  custom: CustomObjectsApi;
  /** Jobs and CronJobs (cleanup beyond pods: shared/objects). */
  batch: BatchV1Api;
  /** The workloads whose pod templates name claims (shared/objects). */
  apps: AppsV1Api;
  /** The hot writes, a pod's DELETE and eviction, sent directly (direct-pods.ts, direct.ts). */
  podWrites: PodDeleter & PodEvictor;
  /** A pass's pod LIST pages and the event path's GET of one pod, read directly: the wire's JSON, not client-node's models. */
  podReads: PodLister & PodReader;
  /** Cleanup beyond pods' LIST pages and GETs (Jobs, claims, Workloads), read directly: the wire's JSON (direct-objects.ts). */
  objectReads: ObjectReads;
  /** Cleanup beyond pods' DELETE, sent directly, its answer unread (direct-objects.ts; the writer's `deleteAsRead`). */
  objectWrites: ObjectDeleter;
  /** The rate limit every request of these clients waits on (and its counters). */
  throttle: Throttle;
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
  /** Client-side rate limit, as client-go's QPS and Burst (default 500 and 1000). */
  qps?: number;
  burst?: number;
  /** How many times a request the API server throttled (429 from its own filters) is sent again. Default 8. */
  throttledRetries?: number;
  /**
   * The CLI's --timeout (ms since the epoch): no request is sent after it, and one in flight is
   * cut off at it (its own timeout never outlasts what is left). An instant, not a signal: a
   * signal combined with each request's timeout (AbortSignal.any) kept every request's signals
   * alive with the long-lived one, ~1.7 KB a request (issue 27: the CLI's live plan grew with it).
   */
  endsAt?: number;
  /** Where each request sent and each answer are counted: the host's recorder (none: not counted). */
  metrics?: MetricsRecorder;
}

// One middleware, not two: client-node reverses its middleware array in place on every call.
// What it does is the request lifecycle's (request-lifecycle.ts), shared with direct.ts.
function middleware(lifecycle: RequestLifecycle, agents: KeepAliveAgents | undefined): Middleware {
  return {
    pre: async (context: RequestContext) => {
      context.setSignal(timeoutSignal(await lifecycle.before(context.getHttpMethod(), context.getUrl())));
      const agent = context.getAgent();
      if (agents && agent) context.setAgent(agents.reuse(agent));
      return context;
    },
    post: async (context: ResponseContext) => {
      lifecycle.after(context.httpStatusCode, context.headers['content-type'], context.headers['retry-after']);
      return context;
    },
  };
}

/** client-node's reads: what may be sent again after a Status 429's Retry-After (errors.ts readRetryPauseMs). */
const READS = /^(list|read|get)[A-Z]/;

/**
 * Every method of `api`, sent again (after the pause the server asked for) when the API
 * server throttled it: one place for every request kube-tidy makes, reads and writes alike.
 * Only throttling is retried here, for it says the request was not processed at all, and a
 * read answered a Status 429 with a Retry-After (a resource's storage still starting), where
 * sending again cannot repeat an effect.
 */
function retryingThrottled<T extends object>(api: T, retries: number): T {
  return new Proxy(api, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } catch (e) {
            if (attempt >= retries) throw e;
            const failure = classifyKubeError(e);
            if (failure.throttled) continue;
            // A read the API server could not serve yet (a Status 429 with a Retry-After): after it.
            const pause = READS.test(String(key)) ? readRetryPauseMs(failure) : undefined;
            if (pause === undefined) throw e;
            await sleepLong(pause);
          }
        }
      };
    },
  });
}

/**
 * What makeApiClient builds, plus the middleware: any client-node API class constructed with
 * `configuration` gets the timeout, kept-alive connections and request counting.
 */
export function clientConfiguration(
  kc: KubeConfig,
  {
    timeoutMs = 30_000,
    keepAlive = true,
    onRequest,
    qps = DEFAULT_QPS,
    burst = DEFAULT_BURST,
    endsAt,
    metrics = MetricsRecorder.off(),
  }: KubeClientOptions = {},
) {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const agents = keepAlive ? new KeepAliveAgents() : undefined;
  const throttle = new Throttle({ qps, burst });
  const lifecycle = new RequestLifecycle({
    timeoutMs,
    throttle,
    server: cluster.server,
    metrics,
    ...(onRequest ? { onRequest } : {}),
    ...(endsAt === undefined ? {} : { endsAt }),
  });
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    promiseMiddleware: [middleware(lifecycle, agents)],
  });
  return { configuration, server: cluster.server, throttle, lifecycle, agents, close: () => agents?.destroy() };
}

export function kubeClients(kc: KubeConfig, options: KubeClientOptions = {}): KubeClients {
  const { configuration, throttle, lifecycle, agents, close } = clientConfiguration(kc, options);
  const retries = options.throttledRetries ?? 8;
  const direct = new DirectRequests(kc, lifecycle, agents, retries);
  const api = <T extends object>(Api: new (c: typeof configuration) => T) => retryingThrottled(new Api(configuration), retries);
  return {
    core: api(CoreV1Api),
    events: api(EventsV1Api),
    policy: api(PolicyV1Api),
    scheduling: api(SchedulingV1Api),
    custom: api(CustomObjectsApi),
    batch: api(BatchV1Api),
    apps: api(AppsV1Api),
    podWrites: new DirectPodWrites(direct),
    podReads: new DirectPodReads(direct),
    objectReads: new DirectObjectReads(direct),
    objectWrites: new DirectObjectWrites(direct),
    throttle,
    close,
  };
}

/**
 * API discovery: whether `group`/`version` is served (GET /apis). One request, no kept-alive
 * connection; failures are typed by the caller (toKubeError). Alpha groups appear here only
 * when the API server enables them (feature gate and --runtime-config). `metrics`: where the
 * request is counted (the host's recorder).
 */
export async function groupVersionServed(kc: KubeConfig, group: string, version: string, timeoutMs: number, metrics?: MetricsRecorder): Promise<boolean> {
  const { configuration } = clientConfiguration(kc, { timeoutMs, keepAlive: false, ...(metrics ? { metrics } : {}) });
  const groups = await new ApisApi(configuration).getAPIVersions();
  return (groups.groups ?? []).some((g) => g.name === group && g.versions.some((v) => v.version === version));
}

// Functions under test over HTTP: the real handler registered with functions-framework and
// served by its own test server, talking to the shared real cluster.
import { createServer } from 'node:http';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { CoreV1Api, EventsV1Api, type V1Pod } from '@kubernetes/client-node';
import supertest from 'supertest';
import { pino, type Logger } from 'pino';
import { startRuntime, type Runtime } from '../../../shared/runtime/runtime.js';
import { httpFunction } from '../../../shared/serve/http/functions-framework.js';
import type { TargetSpec } from '../../../shared/serve/target.js';
import { sharedCluster, waitFor, EXIT_CODE_ANNOTATION } from '../../harness/index.js';
import { httpMessage, toApiServerSourceEvent, type HttpMessage, type HttpMode } from '../../../shared/cloudevents/index.js';

let counter = 0;

/**
 * A runtime for `policy`. The brakes' ledger is cluster-wide by design, and the tests share
 * one cluster: unless the test names one (BRAKES_NAMESPACE, or KUBE_TIDY_NAMESPACE), each
 * runtime gets a ledger of its own, in a namespace of its own, so one test's removals do
 * not spend another's limits in the same window.
 */
export async function runtimeFor(policy: unknown, env: Record<string, string> = {}, log: Logger = pino({ level: 'silent' })): Promise<Runtime> {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-fn-'));
  const file = join(dir, 'policy.json');
  writeFileSync(file, JSON.stringify(policy));
  const ledger = env.BRAKES_NAMESPACE || env.KUBE_TIDY_NAMESPACE ? {} : { BRAKES_NAMESPACE: `brakes-${process.pid}-${++counter}` };
  const rt = await startRuntime({ POLICY_FILE: file, KUBECONFIG: sharedCluster().kubeconfigPath, ...ledger, ...env }, { log });
  started.push(rt);
  return rt;
}

/** Every runtime runtimeFor started: resetBrakes stops those of the ledger it deletes. */
const started: Runtime[] = [];

/**
 * Forgets what earlier tests spent in a shared ledger (tests that share one namespace across
 * tests). The earlier tests' processes are stopped first (their brakes' timers): one that knew
 * the ledger and finds it deleted rebuilds it blind, as it must (brakes/io/lost.ts), and an idle
 * give-back or a hold's renewal firing after the delete did that to the next test's window
 * (its planner and takers all deferred; seen under load, when the timers came late).
 */
export async function resetBrakes(namespace: string): Promise<void> {
  for (const rt of started.filter((r) => r.config.BRAKES_NAMESPACE === namespace)) rt.brakes().close();
  await sharedCluster()
    .kubeConfig()
    .makeApiClient(CoreV1Api)
    .deleteNamespacedConfigMap({ namespace, name: 'kube-tidy-brakes' })
    .catch(() => undefined);
}

/** Registers the target `spec` for `rt` under a fresh name and returns a supertest agent for it. */
export function serve<P>(spec: TargetSpec<P>, rt: Runtime) {
  const name = `fn-${++counter}`;
  http(name, httpFunction(spec, rt));
  return supertest(getTestServer(name));
}

/** What Knative's ApiServerSource (Resource mode) would POST for this object. */
export function knativeRequest(mode: HttpMode, verb: 'add' | 'update' | 'delete', object: V1Pod): HttpMessage {
  return httpMessage(toApiServerSourceEvent(verb, JSON.parse(JSON.stringify(object)), sharedCluster().kubeConfig().getCurrentCluster()!.server), mode);
}

export { pingRequest } from '../../fixtures/events/requests.js';

export function send(agent: ReturnType<typeof supertest>, req: HttpMessage) {
  let r = agent.post('/');
  for (const [k, v] of Object.entries(req.headers)) r = r.set(k, v);
  return r.send(req.body);
}

const IMAGE = 'registry.k8s.io/pause:3.10';

export interface PodSpecOptions {
  exitCode?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Creates a pod on a kwok node and waits until it reached the phase its exit code implies. */
export async function runPod(core: CoreV1Api, namespace: string, name: string, opts: PodSpecOptions = {}): Promise<V1Pod> {
  const annotations = { ...opts.annotations, ...(opts.exitCode === undefined ? {} : { [EXIT_CODE_ANNOTATION]: String(opts.exitCode) }) };
  await core.createNamespacedPod({
    namespace,
    body: { metadata: { name, labels: opts.labels, annotations }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: IMAGE }] } },
  });
  const want = opts.exitCode === undefined ? 'Running' : opts.exitCode === 0 ? 'Succeeded' : 'Failed';
  return waitFor(`${namespace}/${name} ${want}`, async () => {
    const p = await core.readNamespacedPod({ namespace, name });
    return p.status?.phase === want ? p : undefined;
  });
}

/** kube-tidy's Events about a pod (the scheduler records its own). */
export async function tidyEvents(namespace: string, uid: string) {
  const events = await sharedCluster()
    .kubeConfig()
    .makeApiClient(EventsV1Api)
    .listNamespacedEvent({ namespace, fieldSelector: `regarding.uid=${uid}` });
  return events.items.filter((e) => e.reportingController === 'kube-tidy.dev/kube-tidy');
}

export async function exists(core: CoreV1Api, namespace: string, name: string): Promise<V1Pod | undefined> {
  try {
    return await core.readNamespacedPod({ namespace, name });
  } catch {
    return undefined;
  }
}

/**
 * The broker, played by the test: takes every CloudEvent it is sent (202), keeps it, and hands
 * it to `deliver` at once when given one (a shard on its way to another sweep instance).
 */
export async function broker(deliver?: (m: HttpMessage) => void): Promise<{ url: string; taken: HttpMessage[]; close(): void }> {
  const taken: HttpMessage[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers)
          .filter(([k]) => k.startsWith('ce-') || k === 'content-type')
          .map(([k, v]) => [k, String(v)]),
      );
      const m = { headers, body };
      taken.push(m);
      res.writeHead(202).end();
      deliver?.(m);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/`, taken, close: () => void server.close() };
}

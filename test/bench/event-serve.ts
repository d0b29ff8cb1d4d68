// Bench `event-serve` (issue 45, item 6): what the serving layers cost one event, in process,
// with no cluster and no HTTP: the CPU (process.cpuUsage) per event of
//   decode    decodeEvent of an ApiServerSource `update` of a stored Failed pod, binary mode,
//             the body as functions-framework's JSON parser hands it over
//   resolve   the whole resolver around a handler that answers at once what podTerminated
//             answers for a removed pod: decode, accept, the answer's fields, its metrics
//             (the recorder with its SDK loaded, as after the first request) and its log line
//             (pino to /dev/null, as the bench's functions log)
//   answer    the answer's JSON, as the adapter writes it
//   metrics   what one removal records on the event path (its request, three API requests and
//             their answers, the removal), into a recorder with its SDK loaded
// and the resolver again without its log line (LOG_LEVEL=silent) and without metrics, so
// each layer's share shows. The storm (`npm run bench event-cost`) measures the whole event
// path; this says which part of it is the serving's. `npm run bench event-serve [-- N]`.
import { pino } from 'pino';
import { decodeEvent, httpMessage, toApiServerSourceEvent, type KubeObject } from '../../shared/cloudevents/index.js';
import { createLogger } from '../../shared/log.js';
import { MetricsRecorder } from '../../shared/metrics/recorder.js';
import { Notifier } from '../../shared/notify/notifier.js';
import { resolver, type ResolveContext } from '../../shared/serve/resolve.js';
import { defineTarget } from '../../shared/serve/target.js';

/** A Failed bare pod as the API server stores it after the storm's status patch (scale/populate.ts), managedFields and defaults included. */
export function storedFailedPod(i: number): KubeObject {
  const time = '2026-11-29T09:00:00Z';
  const fields = (subresource?: string) => ({
    manager: 'node',
    operation: 'Update',
    apiVersion: 'v1',
    time,
    fieldsType: 'FieldsV1',
    ...(subresource ? { subresource } : {}),
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `f-1-${i}`,
      namespace: `scale-${i % 20}`,
      uid: `0d3c9a52-6b1f-4f7e-9c2a-${String(i).padStart(12, '0')}`,
      resourceVersion: String(100_000 + i),
      creationTimestamp: time,
      labels: { bench: 'scale', kind: 'failed' },
      managedFields: [
        {
          ...fields(),
          fieldsV1: {
            'f:metadata': { 'f:labels': { '.': {}, 'f:bench': {}, 'f:kind': {} } },
            'f:spec': {
              'f:containers': { 'k:{"name":"main"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:resources': {} } },
              'f:nodeName': {},
              'f:restartPolicy': {},
            },
          },
        },
        { ...fields('status'), fieldsV1: { 'f:status': { 'f:phase': {} } } },
      ],
    },
    spec: {
      nodeName: `scale-node-${i % 50}`,
      restartPolicy: 'Never',
      containers: [
        { name: 'main', image: 'registry.k8s.io/pause:3.10', imagePullPolicy: 'IfNotPresent', resources: {}, terminationMessagePath: '/dev/termination-log' },
      ],
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
    status: { phase: 'Failed', qosClass: 'BestEffort' },
  } as unknown as KubeObject;
}

/** What podTerminated answers for a removed pod (functions/pod-terminated.ts through one-pod.ts). */
const removedAnswer = (uid: string) => ({
  outcome: 'deleted',
  pod: 'scale-3/f-1-3',
  uid,
  result: { uid, strategy: 'PodLifeTime', action: 'delete', outcome: 'deleted', dryRun: false },
  requests: 3,
});

/** The measurements one removal on the event path records (serve/request-done.ts, kube/request-lifecycle.ts, cleanup/io/act.ts). */
function recordRemoval(m: MetricsRecorder, i: number): void {
  const host = '127.0.0.1:6443';
  m.record('requests', 1, { target: 'podTerminated', code: '200', outcome: 'deleted' });
  m.record('requestDuration', 0.012, { target: 'podTerminated', code: '200' });
  for (const method of ['GET', 'DELETE', 'POST']) {
    m.record('apiRequests', 1, { method, host });
    m.record('apiResponses', 1, { host, code: method === 'POST' ? '201' : '200' });
  }
  const labels = { result: 'success', action: 'delete', strategy: 'PodLifeTime', profile: 'scale', namespace: `scale-${i % 20}`, node: `scale-node-${i % 50}` };
  m.record('podsEvicted', 1, { ...labels, dry_run: 'false' });
}

const cpuUs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return u.user + u.system;
};

async function perEvent(n: number, each: (i: number) => unknown | Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(2_000, n); i++) await each(i);
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) await each(i);
  return Math.round((cpuUs(t) / n) * 10) / 10;
}

function context(level: string, metricsOn: boolean): ResolveContext {
  // Sync writes to /dev/null: what a function's log costs when its stdout goes nowhere.
  const log = createLogger({ env: { LOG_LEVEL: level }, destination: pino.destination({ dest: '/dev/null', sync: true }) });
  const metrics = metricsOn ? new MetricsRecorder({}) : MetricsRecorder.off();
  return { log, deadlineMs: 60_000, dryRun: false, policyError: () => undefined, notifier: Notifier.off(), metrics };
}

const stub = defineTarget({
  name: 'podTerminated',
  accepts: { kinds: ['Pod'], verbs: ['add', 'update'], ticks: false, hint: 'stub' },
  needs: { policy: false, cluster: 'on-demand' },
  setup: () => ({}),
  handle: async (input) => removedAnswer(input.type === 'object' ? input.event.object.metadata.uid : ''),
});

export async function runEventServeBench(n = 20_000): Promise<object> {
  const messages = Array.from({ length: 500 }, (_, i) => httpMessage(toApiServerSourceEvent('update', storedFailedPod(i), 'https://127.0.0.1:6443')));
  // As functions-framework's JSON parser hands the body over: parsed, once per request.
  const request = (i: number) => {
    const m = messages[i % messages.length]!;
    return { headers: m.headers, body: JSON.parse(m.body) as unknown };
  };
  const resolveWith = async (level: string, metricsOn: boolean) => {
    const ctx = context(level, metricsOn);
    if (metricsOn) await ctx.metrics.loadSdk();
    const r = resolver(stub, {}, ctx);
    return perEvent(n, async (i) => {
      const out = await r.request(request(i));
      if (out.status !== 200) throw new Error(`answered ${out.status}: ${JSON.stringify(out.body)}`);
    });
  };
  const answer = { target: 'podTerminated', ...removedAnswer('u'), dryRun: false };
  const metrics = new MetricsRecorder({});
  await metrics.loadSdk();
  return {
    events: n,
    eventBytes: messages[0]!.body.length,
    jsonParseUs: await perEvent(n, (i) => request(i)),
    decodeUs: await perEvent(n, (i) => decodeEvent(request(i))),
    resolveUs: await resolveWith('info', true),
    resolveNoLogUs: await resolveWith('silent', true),
    resolveNoMetricsUs: await resolveWith('info', false),
    answerJsonUs: await perEvent(n, () => JSON.stringify(answer)),
    metricsPerRemovalUs: await perEvent(n, (i) => recordRemoval(metrics, i)),
    note: 'µs of CPU per event; jsonParseUs is in every other figure (the request as the framework parses it)',
  };
}

import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sweep } from '../../../functions/sweep.js';
import { metricsExposition } from '../../../shared/metrics/exposition.js';
import { FUNCTIONS_SOURCE, startFunctionProcess, type FunctionProcess } from '../../harness/function-process.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { checkMetrics } from '../../fixtures/metrics/promcheck.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../fixtures/metrics/otlp-receiver.js';
import { policyDoc } from '../../fixtures/policy.js';
import { exists, knativeRequest, pingRequest, runPod, runtimeFor, send, serve } from '../functions/setup.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The metrics after real work against the real cluster: the exposition a scrape gets (parsed
// and linted by Prometheus's own code), and what a function process pushes over OTLP.

const ns = testNamespace('metrics');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
// Failed pods in this file's namespace only (the cluster is shared with other files).
const policy = () =>
  policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: ['1-255'], namespaces: { include: [ns.name] } } }], {
    evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
  });

/** The value of one series in a text exposition (labels given in full, in order). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the exposition after a sweep and an event (in process)', () => {
  let text = '';
  beforeAll(async () => {
    const a = await runPod(core(), ns.name, 'swept-a', { exitCode: 2 });
    await runPod(core(), ns.name, 'swept-b', { exitCode: 2 });
    const rt = await runtimeFor(policy());
    const swept = await send(serve(sweep, rt), pingRequest());
    expect(swept.body.summary.outcomes).toEqual({ deleted: 2 });
    // A second event about a pod the sweep deleted: answered, nothing removed.
    await send(serve(podTerminated, rt), knativeRequest('binary', 'update', a));
    text = (await metricsExposition(rt.metrics)).body;
  });

  it('is valid for Prometheus: `promtool check metrics` finds no problem', () => {
    const checked = checkMetrics(text);
    expect(checked.out).toContain('metrics: ok');
    expect(checked.ok).toBe(true);
  });

  it('counts each deleted pod with the descheduler labels, and the pass and the event', () => {
    const node = (text.match(new RegExp(`kube_tidy_pods_evicted_total\\{[^}]*namespace="${ns.name}",node="([^"]+)"`)) ?? [])[1];
    expect(node).toMatch(/^kwok-/);
    // The two pods may have been scheduled to different nodes: one series per node.
    const perNode = text
      .split('\n')
      .filter(
        (l) =>
          l.startsWith(
            `kube_tidy_pods_evicted_total{result="success",action="delete",strategy="PodLifeTime",profile="test",namespace="${ns.name}",node="kwok-`,
          ) && l.includes('dry_run="false"}'),
      );
    expect(perNode.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0)).toBe(2);
    expect(sample(text, 'kube_tidy_requests_total{target="sweep",code="200",outcome="swept"}')).toBe(1);
    expect(sample(text, 'kube_tidy_loop_duration_seconds_count{target="sweep"}')).toBe(1);
    expect(sample(text, 'kube_tidy_request_duration_seconds_count{target="podTerminated",code="200"}')).toBe(1);
    const server = new URL(sharedCluster().kubeConfig().getCurrentCluster()!.server).host;
    expect(sample(text, `kube_tidy_api_requests_total{method="DELETE",host="${server}"}`)).toBe(2);
    expect(sample(text, `kube_tidy_api_responses_total{host="${server}",code="200"}`)).toBeGreaterThanOrEqual(3);
  });
});

describe('a function process pushing over OTLP', () => {
  let receiver: OtlpReceiver;
  let fn: FunctionProcess;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-otlp-'));
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(policy()));
    fn = await startFunctionProcess('podTerminated', FUNCTIONS_SOURCE, {
      POLICY_FILE: join(dir, 'policy.json'),
      KUBECONFIG: sharedCluster().kubeconfigPath,
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'kube-tidy-under-test',
    });
  });
  afterAll(async () => {
    await fn?.stop();
    await receiver?.close();
  });

  it('has pushed the counters before it answers: nothing waits for a later export', async () => {
    const pods = [await runPod(core(), ns.name, 'pushed-a', { exitCode: 3 }), await runPod(core(), ns.name, 'pushed-b', { exitCode: 3 })];
    for (const pod of pods) {
      const req = knativeRequest('binary', 'update', pod);
      const res = await fetch(fn.url, { method: 'POST', headers: req.headers, body: req.body });
      expect(((await res.json()) as { outcome: string }).outcome).toBe('deleted');
    }
    // Read right after the second answer: the export was made before it was sent.
    expect(
      receiver.value('kube_tidy_pods_evicted', { namespace: ns.name, result: 'success', action: 'delete', strategy: 'PodLifeTime', dry_run: 'false' }),
    ).toBe(2);
    expect(receiver.value('kube_tidy_requests', { target: 'podTerminated', code: '200', outcome: 'deleted' })).toBe(2);
    expect(receiver.value('kube_tidy_request_duration_seconds', { target: 'podTerminated' })).toBe(2);
    expect(receiver.value('kube_tidy_api_requests', { method: 'DELETE' })).toBe(2);
    const resource = receiver.exports.at(-1)!.resourceMetrics[0]!.resource?.attributes ?? [];
    expect(resource.find((a) => a.key === 'service.name')?.value.stringValue).toBe('kube-tidy-under-test');
    await waitFor('pods gone', async () => !(await exists(core(), ns.name, 'pushed-a')) && !(await exists(core(), ns.name, 'pushed-b')));
  });
});

// Issue 23's finding: with the collector black-holed, every answer waited ~2 s for its flush.
// Now a slow or failed push costs once, then pushes are skipped for a retry interval (30 s).
describe('a function process whose OTLP collector accepts connections and never answers', () => {
  let fn: FunctionProcess;
  let hole: Server;
  const held: Socket[] = [];
  beforeAll(async () => {
    hole = createServer((s) => void held.push(s));
    await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-otlp-down-'));
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(policy()));
    fn = await startFunctionProcess('podTerminated', FUNCTIONS_SOURCE, {
      POLICY_FILE: join(dir, 'policy.json'),
      KUBECONFIG: sharedCluster().kubeconfigPath,
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `http://127.0.0.1:${(hole.address() as AddressInfo).port}/v1/metrics`,
    });
  });
  afterAll(async () => {
    await fn?.stop();
    for (const s of held) s.destroy();
    await new Promise((resolve) => hole?.close(resolve));
  });

  it('makes only the first answer wait for the push (its 2 s cap); the next ones answer at once', async () => {
    const running: V1Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: ns.name, uid: 'u-web', creationTimestamp: new Date() },
      spec: { containers: [{ name: 'c', image: 'x' }] },
      status: { phase: 'Running' },
    };
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      const req = knativeRequest('binary', 'update', running);
      const t0 = performance.now();
      const res = await fetch(fn.url, { method: 'POST', headers: req.headers, body: req.body });
      expect(((await res.json()) as { outcome: string }).outcome).toBe('nothing-to-do');
      times.push(performance.now() - t0);
    }
    // The first push went to the black hole and was cut at the cap: proof a push was tried.
    expect(times[0], times.map((t) => t.toFixed(0)).join(', ')).toBeGreaterThan(1_500);
    // Then skipped: five answers together take less than one capped push.
    const rest = times.slice(1).reduce((a, b) => a + b, 0);
    expect(rest, times.map((t) => t.toFixed(0)).join(', ')).toBeLessThan(1_500);
    expect(held.length).toBeGreaterThan(0);
  });
});

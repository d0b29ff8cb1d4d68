// Issue 26, item 1, beyond pod cleanup: the defragmentation family's steps as CloudEvents, from
// the real function on a real control plane (kube-scheduler, kwok nodes) to a real receiver.
// Two nodes, one single-replica Deployment on each: a dry step plans, a real step evicts one
// pod, the next verifies the move. The receiver sees one dev.kube-tidy.defrag.step.v1 per step,
// in order, as the answers said, each valid against its schema.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { HTTP, type CloudEventV1 } from 'cloudevents';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defrag } from '../../../functions/defrag.js';
import type { DefragStepData } from '../../../shared/notify/types.js';
import { startRuntime } from '../../../shared/runtime/runtime.js';
import { policyDoc } from '../../fixtures/policy.js';
import { pingRequest } from '../../fixtures/events/requests.js';
import { outSchemas } from '../../fixtures/events/out-schemas.js';
import { startCluster, waitFor, type Cluster } from '../../harness/index.js';
import { send, serve } from '../functions/setup.js';
import { cordon, onePerNode, runningPods } from '../defrag/scenario.js';

describe('defragmentation steps as CloudEvents', () => {
  let cluster: Cluster;
  let server: ReturnType<typeof createServer>;
  const events: CloudEventV1<unknown>[] = [];
  const ns = 'default';
  const policy = join(mkdtempSync(join(tmpdir(), 'kube-tidy-events-')), 'policy.json');
  // The sink in the instance's environment, as its host reads it at start.
  let sinkEnv: Record<string, string> = {};
  const runtime = (env: Record<string, string>) =>
    startRuntime({ POLICY_FILE: policy, KUBECONFIG: cluster.kubeconfigPath, ...sinkEnv, ...env }, { log: pino({ level: 'silent' }) });

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        events.push(HTTP.toEvent({ headers: req.headers, body }) as CloudEventV1<unknown>);
        res.writeHead(202).end();
      });
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    sinkEnv = { EVENTS_SINK: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, EVENTS_SOURCE: '//clusters/events-defrag' };
    writeFileSync(policy, JSON.stringify(policyDoc([{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 86400 } }])));
    cluster = await startCluster({ name: 'events-defrag', kwokNodes: 0 });
    const kc = cluster.kubeConfig();
    await onePerNode(kc.makeApiClient(CoreV1Api), kc.makeApiClient(AppsV1Api), ns);
    await cordon(kc.makeApiClient(CoreV1Api), ['n1'], false);
  });
  afterAll(async () => {
    server?.close();
    await cluster?.stop();
  });

  it('one defrag.step event per step, in order, as each answer said', async () => {
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    const answers: { outcome: string; dryRun: boolean; move?: { pod: { namespace: string; name: string } } }[] = [];
    const dry = serve(defrag, await runtime({ DRY_RUN: 'true' }));
    answers.push((await send(dry, pingRequest())).body);
    const real = serve(defrag, await runtime({}));
    answers.push((await send(real, pingRequest())).body);
    await waitFor('the replacement running', async () => (await runningPods(core, ns)).length === 2);
    answers.push((await send(real, pingRequest())).body);
    expect(answers.map((a) => [a.outcome, a.dryRun])).toEqual([
      ['planned', true],
      ['evicted', false],
      [expect.any(String), false],
    ]);
    await waitFor('three steps received', async () => events.length >= 3);

    const steps = events.filter((e) => e.type === 'dev.kube-tidy.defrag.step.v1');
    expect(steps).toHaveLength(3);
    const schemas = outSchemas();
    for (const e of steps) expect(schemas.check(e.dataschema!, e.data), JSON.stringify(e.data)).toEqual([]);
    expect(steps.map((e) => [(e.data as DefragStepData).outcome, (e.data as DefragStepData).dryRun, e.dryrun])).toEqual(
      answers.map((a) => [a.outcome, a.dryRun, String(a.dryRun)]),
    );
    const moved = answers[1]!.move!.pod;
    expect(steps[1]).toMatchObject({ source: '//clusters/events-defrag/defrag', subject: `namespaces/${moved.namespace}/pods/${moved.name}` });
    // The step after the eviction verified it.
    expect((steps[2]!.data as DefragStepData).verified).toMatchObject({ pod: `${moved.namespace}/${moved.name}` });
  });
});

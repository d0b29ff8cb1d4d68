import { httpFunction } from '../../../shared/serve/http/functions-framework.js';
import type { AddressInfo } from 'node:net';
import { CoreV1Api } from '@kubernetes/client-node';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { http } from '@google-cloud/functions-framework';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { startBridge, silentLogger, type Bridge } from '../../../shared/hosts/bridge/index.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { exists, runPod, runtimeFor, tidyEvents } from '../functions/setup.js';

// The real event path: a watch on the real cluster, the bridge's Knative-format CloudEvents,
// the podTerminated function on a real HTTP port, the real delete. Nothing in between is
// adapted: what the bridge sends, the function takes unchanged.

const ns = testNamespace('e2e');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
let bridge: Bridge;
let server: ReturnType<typeof getTestServer>;
const answers: number[] = [];

beforeAll(async () => {
  const policy = policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: [3] } }], {
    evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
  });
  const rt = await runtimeFor(policy);
  http('e2ePodTerminated', httpFunction(podTerminated, rt));
  server = getTestServer('e2ePodTerminated');
  // Record every status the function answers the bridge with.
  server.prependListener('request', (_req, res) => res.once('finish', () => answers.push(res.statusCode)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  bridge = await startBridge({
    kubeConfig: sharedCluster().kubeConfig(),
    sink: `http://127.0.0.1:${port}/`,
    namespace: ns.name,
    log: silentLogger,
    statsIntervalMs: 0,
  });
});

afterAll(async () => {
  await bridge?.stop();
  await new Promise((r) => server?.close(r));
});

describe('bridge -> podTerminated -> cluster', () => {
  it('a pod failing with a selected exit code is gone shortly after it fails, with an Event; others stay', async () => {
    const bad = await runPod(core(), ns.name, 'bad-input', { exitCode: 3 });
    await runPod(core(), ns.name, 'other-error', { exitCode: 1 });
    await waitFor('bad-input removed', async () => !(await exists(core(), ns.name, 'bad-input')), { timeoutMs: 30_000 });
    expect((await tidyEvents(ns.name, bad.metadata!.uid!)).map((e) => e.reason)).toEqual(['Deleted']);
    expect(await exists(core(), ns.name, 'other-error')).toBeDefined();
    // Every event was accepted as it was sent: no 4xx, no 5xx.
    await waitFor('deliveries settled', async () => bridge.stats().waiting === 0 && bridge.stats().running === 0);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((s) => s !== 200)).toEqual([]);
    expect(bridge.stats()).toMatchObject({ rejected: 0, failed: 0 });
  });
});

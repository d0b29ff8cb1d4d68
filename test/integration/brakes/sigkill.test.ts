// A podTerminated process killed with SIGKILL while it holds a reservation (its pod's unit and
// a chunk): another instance counts the whole hold as spent while it lives, and once it
// expires the hold is charged in full, not handed back: nothing is double-spent, and at most
// that one chunk is lost for the window. A policy that raises the limit mid-window starts
// from what was spent (the charged hold included), not from zero.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import type { V1Pod } from '@kubernetes/client-node';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { startServerProcess, type ServerProcess } from '../../harness/function-process.js';
import { knativeRequest, runtimeFor, send, serve } from '../functions/setup.js';
import { failedPolicy, makePods, podNames, range, storedLedger, windowWithRoom } from './helpers.js';

const ns = testNamespace('brakes-kill');
const home = testNamespace('brakes-kill-home');
const HOLD_SECONDS = 5;
let pods: V1Pod[];
let child: ServerProcess | undefined;
const runtimes: Runtime[] = [];

beforeAll(async () => {
  pods = await makePods(ns.name, range('kill', 12), { exitCode: 137 });
}, 120_000);
afterAll(async () => {
  await child?.stop();
  for (const rt of runtimes) rt.brakes().close();
});

const post = async (url: string, pod: V1Pod) => {
  const m = knativeRequest('binary', 'update', pod);
  const res = await fetch(url, { method: 'POST', headers: m.headers, body: m.body, signal: AbortSignal.timeout(30_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const gone = async () => 12 - (await podNames(ns.name)).length;

describe('a podTerminated process SIGKILLed holding a reservation', () => {
  it('its hold counts as spent while it lives, is charged in full when it expires, and only its chunk is lost', async () => {
    const { top, windowMs } = windowWithRoom(2 * 60_000);
    const counter = `cluster|${windowMs}|${Math.floor(Date.now() / windowMs) * windowMs}|`;
    const policy = failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 12, ...top });
    const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-kill-')), 'policy.json');
    writeFileSync(file, JSON.stringify(policy));
    const ledger = { BRAKES_NAMESPACE: home.name, BRAKES_HOLD_SECONDS: String(HOLD_SECONDS) };
    child = await startServerProcess('podTerminated', { POLICY_FILE: file, KUBECONFIG: sharedCluster().kubeconfigPath, LOG_LEVEL: 'warn', ...ledger });

    // The child removes one pod and holds its unit plus a chunk (a quarter of the 11 left: 2);
    // idle with so little left it would settle after 2 s; it is killed before.
    expect((await post(child.url, pods[0]!)).body).toMatchObject({ outcome: 'deleted' });
    const held = await storedLedger(home.name);
    expect(held.counts).toEqual({});
    const [hold, ...others] = Object.values(held.holds);
    expect(others).toEqual([]);
    expect(hold!.grants).toEqual({ [counter]: 3 });
    child.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    // Another instance, while the hold lives: 12 - 3 units, whatever it asks.
    const start = async (total: number) => {
      const rt = await runtimeFor(failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: total, ...top }), ledger);
      runtimes.push(rt);
      return { rt, agent: serve(podTerminated, rt) };
    };
    const other = await start(12);
    const first: string[] = [];
    for (const pod of pods.slice(1, 11)) first.push((await send(other.agent, knativeRequest('binary', 'update', pod))).body.outcome);
    expect(Date.now(), 'the first phase ran while the killed hold lived').toBeLessThan(hold!.until);
    expect(first).toEqual([...Array(9).fill('deleted'), 'deferred']);
    expect(await gone()).toBe(10);

    // Expired: charged in full by whoever writes next, never handed back.
    await waitFor('the killed hold to expire', async () => Date.now() > hold!.until + 200, { timeoutMs: (HOLD_SECONDS + 5) * 1000 });
    await other.rt.brakes().settle();
    const late = await Promise.all(pods.slice(10).map((pod) => send(other.agent, knativeRequest('binary', 'update', pod))));
    expect(late.map((r) => [r.status, r.body.outcome, r.body.deferred?.budget])).toEqual([
      [200, 'deferred', 'maxNoOfPodsToEvictTotal'],
      [200, 'deferred', 'maxNoOfPodsToEvictTotal'],
    ]);
    expect(await gone()).toBe(10);

    // The limit raised to 14 mid-window: 2 more, not 4. The child's 3 units stay counted (1
    // removal and the chunk of 2 lost), and the ledger counts exactly 14.
    const raised = await start(14);
    const more = [];
    for (const pod of pods.slice(10)) more.push((await send(raised.agent, knativeRequest('binary', 'update', pod))).body.outcome);
    expect(more).toEqual(['deleted', 'deleted']);
    expect(await gone()).toBe(12);
    for (const rt of runtimes) await rt.brakes().settle();
    const after = await storedLedger(home.name);
    expect(after).toMatchObject({ counts: { [counter]: 14 }, holds: {} });
  });
});

// Issue 27 on the real control plane: a pass writes each page's deletes while it reads the next
// pages where the order cannot change what is removed (selection/early.ts), and keeps the whole
// order where it can (a limit); a sweep cut by its time budget hands what it did not start to
// its next tick, which writes it without listing (cleanup/io/carry.ts), each write still tied
// to the pod as listed: a pod changed since is refused (409), read and decided again as stored
// (removed when still selected), and one replaced since is not removed on the carried decision.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { sweep } from '../../../functions/sweep.js';
import { cleanupParts, runPass, type CleanupHandle } from '../../../shared/cleanup/index.js';
import { kubeClients, type KubeClients } from '../../../shared/kube/clients.js';
import { startRuntime, type Runtime } from '../../../shared/runtime/runtime.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { core, failedPolicy, makePods, podNames, range } from '../brakes/helpers.js';
import { pingRequest, runtimeFor, send, serve } from './setup.js';
import { before } from '../../fixtures/client-spy.js';

const open: { rt?: Runtime; clients?: KubeClients }[] = [];
afterAll(() => {
  for (const o of open) {
    o.rt?.brakes().close();
    o.clients?.close();
  }
});

/** A handle whose LIST pages come slowly (each after the first waits `delayMs`, as a big cluster's pages take time), recording when each was asked for. */
async function slowPages(policy: object, delayMs: number) {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-early-')), 'policy.json');
  writeFileSync(file, JSON.stringify(policy));
  const kubeConfig = sharedCluster().kubeConfig();
  const clients = kubeClients(kubeConfig, {});
  const rt = await startRuntime(
    { POLICY_FILE: file, KUBECONFIG: sharedCluster().kubeconfigPath, SWEEP_PAGE_SIZE: '2', RECORD_EVENTS: 'false', BRAKES_NAMESPACE: `early-${process.pid}` },
    { log: pino({ level: 'silent' }), kubeConfig, clients },
  );
  open.push({ rt, clients });
  const handle = cleanupParts(rt).handle;
  const asked: number[] = [];
  const podReads = before(clients.podReads, 'listNamespacedPod', async () => {
    asked.push(performance.now());
    if (asked.length > 1) await new Promise((r) => setTimeout(r, delayMs));
  });
  const h: CleanupHandle = { ...handle, reader: { ...handle.reader, podReads } };
  return { h, asked };
}

describe('early writes', () => {
  const ns = testNamespace('sweep-early');
  const limited = testNamespace('sweep-early-limit');

  it('a page’s deletes are written while the later pages are still being read, and every selected pod goes', async () => {
    await makePods(ns.name, range('f', 12), { exitCode: 137 });
    const { h, asked } = await slowPages(failedPolicy([ns.name]), 150);
    const answered: number[] = [];
    const s = await runPass(h, {
      policy: h.policy(),
      namespaces: [ns.name],
      dryRun: false,
      budgetMs: 60_000,
      early: true,
      onResult: () => answered.push(performance.now()),
    });
    expect(s.outcomes).toEqual({ deleted: 12 });
    expect(s.pages).toBe(asked.length);
    expect(asked.length).toBeGreaterThanOrEqual(6);
    // The first delete was answered before the last page was even asked for.
    expect(Math.min(...answered)).toBeLessThan(asked.at(-1)!);
    expect(s.firstWriteMs).toBeLessThan(s.listMs);
    expect(await podNames(ns.name)).toEqual([]);
  }, 120_000);

  it('with a limit (it keeps the first in the order), nothing is written before the last page is decided, and the oldest go', async () => {
    // Three groups a second apart: the limit of 4 takes the oldest group and one of the next.
    for (const [g, group] of ['old', 'mid', 'new'].entries()) {
      if (g > 0) await new Promise((r) => setTimeout(r, 1100));
      await makePods(limited.name, range(group, 3), { exitCode: 137 });
    }
    const { h, asked } = await slowPages(failedPolicy([limited.name], { maxNoOfPodsToEvictTotal: 4 }), 100);
    const answered: number[] = [];
    const s = await runPass(h, {
      policy: h.policy(),
      namespaces: [limited.name],
      dryRun: false,
      budgetMs: 60_000,
      early: true,
      onResult: () => answered.push(performance.now()),
    });
    expect(s.outcomes).toEqual({ deleted: 4 });
    expect(Math.min(...answered)).toBeGreaterThan(asked.at(-1)!);
    expect(
      s.results
        .slice(0, 3)
        .map((r) => r.name)
        .sort(),
    ).toEqual(['old-0', 'old-1', 'old-2']);
    expect(s.results[3]!.name).toMatch(/^mid-/);
  }, 120_000);
});

describe('early writes select what the ordered pass selects', () => {
  const ns = testNamespace('sweep-early-same');

  it('over the same pods (dry run, pages of 2), the early pass and the ordered one act on the same pods with the same strategies', async () => {
    await makePods(ns.name, range('kill', 7), { exitCode: 137 });
    await makePods(ns.name, range('fail', 3), { exitCode: 1 }); // Failed, but not with the policy's exit code
    await makePods(ns.name, range('run', 2));
    const { h } = await slowPages(failedPolicy([ns.name]), 0);
    const pass = async (early: boolean) => {
      const s = await runPass(h, { policy: h.policy(), namespaces: [ns.name], dryRun: true, budgetMs: 60_000, early });
      return s.results.map((r) => `${r.name} ${r.strategy} ${r.action} ${r.outcome}`).sort();
    };
    const [ordered, early] = [await pass(false), await pass(true)];
    expect(early).toEqual(ordered);
    expect(early).toEqual(range('kill', 7).map((n) => `${n} RemoveFailedPods delete deleted`));
    expect(await podNames(ns.name)).toHaveLength(12);
  }, 120_000);
});

describe('a sweep cut by its time budget hands the rest to its next tick', () => {
  const ns = testNamespace('sweep-carry');

  it('the next tick writes it without listing; a pod changed since is read again and removed as stored, one replaced is not; then a tick lists again', async () => {
    await makePods(ns.name, range('c', 30), { exitCode: 137 });
    // A slow client (8 requests a second, no burst), two writes in flight and a one-second budget: each tick gets to a few pods.
    const rt = await runtimeFor(failedPolicy([ns.name]), {
      SWEEP_TIME_BUDGET_SECONDS: '1',
      SWEEP_CONCURRENCY: '2',
      KUBE_CLIENT_QPS: '8',
      KUBE_CLIENT_BURST: '1',
      RECORD_EVENTS: 'false',
    });
    open.push({ rt });
    const agent = serve(sweep, rt);
    type Answer = {
      summary: { planFrom: string; pages: number; podsSeen: number; requests: number; carriedOn?: number; stoppedBy?: string };
      results: { name: string; outcome: string }[];
    };
    const tick = async (): Promise<Answer> => {
      const res = await send(agent, pingRequest());
      expect([200, 503]).toContain(res.status);
      return res.body as Answer;
    };

    const first = await tick();
    expect(first.summary).toMatchObject({ planFrom: 'listed', stoppedBy: 'time-budget' });
    expect(first.summary.carriedOn).toBeGreaterThan(0);
    const left = await podNames(ns.name);
    expect(left.length).toBe(first.summary.carriedOn);

    // Two of the carried pods change under the plan: one is relabelled (still Failed: still the
    // policy's, but not as decided on), one is replaced by a running pod of the same name.
    const [changed, replaced] = [left[0]!, left[1]!];
    await core().patchNamespacedPod(
      { namespace: ns.name, name: changed, body: { metadata: { labels: { touched: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core().deleteNamespacedPod({ namespace: ns.name, name: replaced, gracePeriodSeconds: 0 });
    await waitGone(ns.name, replaced);
    await makePods(ns.name, [replaced]);
    const replacedUid = (await core().readNamespacedPod({ namespace: ns.name, name: replaced })).metadata!.uid!;

    const carried: Answer[] = [];
    let next = await tick();
    while (next.summary.planFrom === 'carried') {
      // Nothing listed: only the carried writes were sent, and for a pod whose write met 409 its
      // read (GET) and, still selected as stored, its write again.
      expect(next.summary).toMatchObject({ pages: 0, podsSeen: 0 });
      const again = next.results.reduce((n, r) => n + (r.name === changed ? 2 : r.name === replaced ? 1 : 0), 0);
      expect(next.summary.requests).toBe(next.results.length + again);
      carried.push(next);
      next = await tick();
    }
    expect(carried.length).toBeGreaterThan(0);
    const outcome = (name: string) => carried.flatMap((a) => a.results).find((r) => r.name === name)?.outcome;
    // The relabelled pod is still the policy's as stored: read again after its 409 and removed on its tick (issue 45).
    expect(outcome(changed)).toBe('deleted');
    expect(outcome(replaced)).toBe('stale');
    // Once nothing is carried, a tick lists again and decides afresh.
    expect(next.summary.planFrom).toBe('listed');
    let ticks = 0;
    while ((await podNames(ns.name)).length > 1 && ticks++ < 10) await tick();
    expect(await podNames(ns.name)).toEqual([replaced]);
    expect((await core().readNamespacedPod({ namespace: ns.name, name: replaced })).metadata!.uid).toBe(replacedUid);
  }, 180_000);
});

async function waitGone(namespace: string, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (!(await podNames(namespace)).includes(name)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${namespace}/${name} still there`);
}

describe('a sweep reading in steps goes on with the list where its last tick stopped', () => {
  const ns = testNamespace('sweep-steps');

  it('pages are read as the writes go, and the ticks together read the list once, not once each', async () => {
    await makePods(ns.name, range('s', 40), { exitCode: 137 });
    // Pages of 2 (so 4 deletes wait at most before the next page is read), a slow client and a one-second budget.
    const rt = await runtimeFor(failedPolicy([ns.name]), {
      SWEEP_TIME_BUDGET_SECONDS: '1',
      SWEEP_CONCURRENCY: '2',
      SWEEP_PAGE_SIZE: '2',
      KUBE_CLIENT_QPS: '10',
      KUBE_CLIENT_BURST: '1',
      RECORD_EVENTS: 'false',
    });
    open.push({ rt });
    // Every Failed pod of the cluster is on the sweep's list (other files' too): one whole list is this many pages.
    const failedNow = (await core().listPodForAllNamespaces({ fieldSelector: 'status.phase=Failed' })).items.length;
    const agent = serve(sweep, rt);
    type Summary = { planFrom: string; pages: number; resumesList?: boolean; carriedOn?: number; listWaitMs: number };
    const ticks: Summary[] = [];
    for (let i = 0; i < 40 && (await podNames(ns.name)).length > 0; i++) {
      const res = await send(agent, pingRequest());
      expect([200, 503]).toContain(res.status);
      ticks.push(res.body.summary as Summary);
    }
    expect(await podNames(ns.name)).toEqual([]);
    expect(ticks[0]).toMatchObject({ planFrom: 'listed', resumesList: true });
    expect(ticks.slice(1).some((t) => t.planFrom === 'resumed')).toBe(true);
    // Up to the tick that read the last page, the ticks read one list between them (a few pages
    // more at most: other files' Failed pods come and go), where listing from the start each
    // tick would read it again every time.
    const whole = Math.ceil(failedNow / 2) + 1;
    const last = ticks.findIndex((t, i) => i > 0 && t.planFrom !== 'listed' && !t.resumesList);
    const read = ticks.slice(0, last + 1).reduce((n, t) => n + t.pages, 0);
    expect(last).toBeGreaterThan(0);
    expect(read).toBeLessThanOrEqual(whole + 3);
  }, 180_000);
});

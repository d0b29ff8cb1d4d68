// `npm run demo:multikueue`: MultiKueue cleanup end to end on three local control planes (a
// manager and two workers, set up as Kueue would be: MultiKueueConfig, MultiKueueClusters, a
// kubeconfig Secret and a Path). jobDeleted and orphanSweep run as their own processes, the
// bridge posts the manager's Job events to jobDeleted. Three stories:
//   1. the event path: manager Jobs deleted -> copies in both workers gone with their pods;
//   2. the #5452 leftovers: a copy deleted without propagation leaves pods; the sweep removes them;
//   3. another manager's copy (another origin) is never touched.
import { startBridge, silentLogger } from '../../../shared/hosts/bridge/index.js';
import { JOB_NAME_LABEL } from '../../../shared/multikueue/index.js';
import { waitFor } from '../../../test/harness/wait.js';
import { startEnv, type Apis } from '../../../test/integration/multikueue/env.js';
import { copyJob, managerJob, podsOf, tick, writePolicy } from '../../../test/integration/multikueue/fixtures.js';
import { startFunction } from './functions.js';
import { say, seconds } from './report.js';

const NS = 'ml';
const count = async (w: Apis, job: string) => (await podsOf(w, NS, job)).length;

async function main(): Promise<void> {
  say('starting three control planes: manager, worker-1, worker-2 (Kueue CRDs, MultiKueue objects)');
  const env = await startEnv();
  const stops: (() => Promise<unknown>)[] = [() => env.stop()];
  let ok = true;
  try {
    const [w1, w2] = env.workers;
    for (const a of [env.manager, w1, w2]) await a.core.createNamespace({ body: { metadata: { name: NS } } });
    const fnEnv = { POLICY_FILE: writePolicy(), KUBECONFIG: env.manager.cluster.kubeconfigPath, MULTIKUEUE_CONFIG: 'mk' };
    let adds = 0;
    const onLine = (e: Record<string, unknown>) => {
      if (e.msg === 'handled' && e.outcome === 'nothing-to-do') adds++;
      if (e.msg === 'handled' && e.outcome === 'cascaded') say(`jobDeleted    ${e.why}`);
    };
    const cascade = await startFunction('jobDeleted', fnEnv, onLine);
    const sweep = await startFunction('orphanSweep', fnEnv, () => {});
    stops.unshift(
      () => cascade.stop(),
      () => sweep.stop(),
    );
    // A tick, retried on 503 as a scheduler would: the sweep refuses to act while a worker
    // cannot be read completely (a fresh control plane answers 429 while its storage starts).
    const runSweep = async (): Promise<{ status: number; body: { summary: Record<string, unknown> } }> => {
      for (let attempt = 1; ; attempt++) {
        const res = await fetch(sweep.url, { method: 'POST', ...tick() });
        const body = (await res.json()) as { summary: Record<string, unknown> };
        if (res.status !== 503 || attempt === 30) return { status: res.status, body };
        if (attempt === 1) say(`orphanSweep answered 503 (${JSON.stringify(body.summary)}); retrying as a scheduler would`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    const bridge = await startBridge({
      kubeConfig: env.manager.cluster.kubeConfig(),
      sink: cascade.url,
      kinds: ['Job'],
      namespace: NS,
      log: silentLogger,
      statsIntervalMs: 0,
    });
    stops.unshift(() => bridge.stop());
    say('functions jobDeleted and orphanSweep serving; the bridge posts manager Job events to jobDeleted');

    // 1. The event path.
    const names = ['train-a', 'train-b', 'eval-c'];
    for (const name of names) {
      await managerJob(env.manager, NS, name);
      await copyJob(w1, NS, name, { state: 'Running' });
      await copyJob(w2, NS, name, { state: name.startsWith('eval') ? 'Completed' : 'Running' });
    }
    say(`story 1: ${names.length} manager Jobs, each copied into both workers (Running and Completed pods)`);
    // The bridge has delivered the Jobs' add events: its watch is up, no delete will be missed.
    await waitFor('the bridge delivering the manager Jobs', async () => adds >= names.length);
    const t0 = Date.now();
    for (const name of names) await env.manager.batch.deleteNamespacedJob({ namespace: NS, name, propagationPolicy: 'Background' });
    const allGone = async () => (await Promise.all(names.flatMap((n) => [count(w1, n), count(w2, n)]))).every((c) => c === 0);
    const viaEvents = await waitFor('every copy pod gone', allGone, { timeoutMs: 15_000 }).catch(() => false);
    if (viaEvents) say(`story 1: manager deletion -> last worker pod gone in ${seconds(Date.now() - t0)}`);
    else {
      // Events can be missed (a watch gap): that is what the sweep is for.
      say('story 1: not every copy went through the event path; orphanSweep catches the rest');
      await runSweep();
      ok = (await waitFor('every copy pod gone after the sweep', allGone, { timeoutMs: 30_000 }).catch(() => false)) && ok;
    }

    // 2. The #5452 leftovers.
    await copyJob(w1, NS, 'legacy', { state: 'Running' });
    await managerJob(env.manager, NS, 'legacy');
    const witness = await runSweep();
    if (witness.status !== 200) ok = false;
    say(`story 2: orphanSweep answered ${witness.status}: it has seen ml/legacy in worker-1 carry our origin (witness record)`);
    await bridge.stop();
    await env.manager.batch.deleteNamespacedJob({ namespace: NS, name: 'legacy', propagationPolicy: 'Background' });
    await w1.batch.deleteNamespacedJob({ namespace: NS, name: 'legacy' }); // as Kueue < v0.13 did: no propagationPolicy
    await waitFor('legacy pods orphaned', async () => (await podsOf(w1, NS, 'legacy')).every((p) => !p.metadata?.ownerReferences?.length));
    say(`story 2: copy deleted without propagation (events missed: bridge stopped); ${await count(w1, 'legacy')} pods left Running in worker-1`);
    const res = await runSweep();
    say(`story 2: orphanSweep answered ${res.status}: ${JSON.stringify(res.body.summary)}`);
    await waitFor('legacy pods gone', async () => (await count(w1, 'legacy')) === 0, { timeoutMs: 30_000 }).catch(() => (ok = false));
    say(`story 2: leftover pods in worker-1: ${await count(w1, 'legacy')}`);

    // 3. Another manager's copy.
    await copyJob(w2, NS, 'theirs', { origin: 'another-manager' });
    await runSweep();
    const theirs = (await w2.core.listNamespacedPod({ namespace: NS, labelSelector: `${JOB_NAME_LABEL}=theirs` })).items.length;
    say(`story 3: a copy labelled multikueue-origin=another-manager in worker-2 still has ${theirs} pods after the sweep`);
    if (theirs !== 2) ok = false;
  } finally {
    say('stopping everything the demo started');
    for (const stop of stops) await stop().catch(() => {});
  }
  say(ok ? 'every story ended as expected' : 'some story did not end as expected (see above)');
  if (!ok) process.exitCode = 1;
}

await main();

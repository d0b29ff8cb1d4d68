// `npm run bench fuzz`: the adversary fuzz (test/integration/adversary/fuzz.ts) at bench size on
// a cluster of its own (audit log on): FUZZ_RUNS events (default 50,000), FUZZ_SEED (default
// the CI test's). Prints events, wrong writes (and how many the API server carried out),
// status codes per target, and the first wrong writes.
import { CoreV1Api } from '@kubernetes/client-node';
import { startCluster } from '../harness/index.js';
import { waitFor } from '../harness/wait.js';
import { adversary } from '../integration/adversary/env.js';
import { runFuzz, summary } from '../integration/adversary/fuzz.js';

export async function runFuzzBench(): Promise<object> {
  const runs = Number(process.env.FUZZ_RUNS ?? 50_000);
  const seed = Number(process.env.FUZZ_SEED ?? 20_240_613);
  const cluster = await startCluster({ name: 'fuzz', kwokNodes: 1, audit: true });
  try {
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    const ns = 'fuzz';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await waitFor('the default ServiceAccount', () => core.readNamespacedServiceAccount({ name: 'default', namespace: ns }).then(() => true));
    const env = await adversary(ns, ['podTerminated', 'evacuation', 'jobDeleted', 'sweep', 'orphanSweep', 'defrag'], {
      kubeconfigPath: cluster.kubeconfigPath,
      kubeConfig: () => cluster.kubeConfig(),
      audit: cluster.audit!,
    });
    try {
      let last = Date.now();
      const f = await runFuzz(env, {
        seed,
        runs,
        onBatch: (x) => {
          if (Date.now() - last < 10_000) return;
          last = Date.now();
          console.log(`[fuzz] ${summary(x)}`);
        },
      });
      console.log(`[fuzz] ${summary(f)}`);
      return {
        seed,
        events: f.events,
        seconds: +(f.ms / 1000).toFixed(1),
        wrongWrites: f.wrongWrites.length,
        wrongWritesCarriedOut: f.wrongWritesDone,
        outsidePolicy: f.outsidePolicy,
        fiveXX: f.fiveXX,
        recreated: f.recreated,
        statuses: f.statuses,
        firstWrongWrites: [...f.outsideExamples, ...f.wrongWrites].slice(0, 10),
      };
    } finally {
      await env.stop();
    }
  } finally {
    await cluster.stop();
  }
}

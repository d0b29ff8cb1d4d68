// A pass (cleanup/io/pass.ts: sweep, invoke, the CLI) whose selected pods change between its
// LIST and its write, on the real control plane: the write is tied to the resourceVersion
// listed, the API server answers 409, and the pass reads the pod and decides again as stored,
// once, through the one-pod path's stages with the pass's own writer, brakes and dry run (issue
// 45, item 2). Before, such a pod was answered stale and left for the next pass. The change is
// made on cue by a hook on the writer (test-only): before the first removal of each pod, a real
// write to that pod through the API server.
import { CoreV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { runPass } from '../../../shared/cleanup/io/pass.js';
import { cliHandle } from '../../../shared/hosts/cli/handle.js';
import { kubeClients } from '../../../shared/kube/clients.js';
import type { ClusterWriter } from '../../../shared/kube/writer.js';
import { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import { Notifier } from '../../../shared/notify/notifier.js';
import { loadPolicy } from '../../../shared/policy/load.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { failedPolicy, makePods, podNames, range } from '../brakes/helpers.js';

const ns = testNamespace('pass-changed');

/** A JSON patch of the pod's labels made before its first removal: `touched` keeps it selected, `away` takes it out. */
const CHANGES = {
  touched: (set: string) => [{ op: 'add', path: '/metadata/labels/touched', value: set }],
  away: () => [{ op: 'remove', path: '/metadata/labels/set' }],
};

/** `writer` whose removePod first changes the pod once, through the API server. */
function changingFirst(writer: ClusterWriter, change: (set: string) => object[], changed: string[]): ClusterWriter {
  const core = sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
  const removePod = writer.removePod.bind(writer);
  writer.removePod = async (target, ...rest) => {
    if (!changed.includes(target.name)) {
      changed.push(target.name);
      await core.patchNamespacedPod({ name: target.name, namespace: target.namespace ?? ns.name, body: change(target.name) });
    }
    return removePod(target, ...rest);
  };
  return writer;
}

/** One pass over the pods labelled set=`prefix`, every removal of which first changes its pod. */
async function passChangingFirst(prefix: string, change: (set: string) => object[], dryRun = false) {
  const names = range(prefix, 3);
  await makePods(ns.name, names, { exitCode: 137, labels: { set: prefix } });
  const policy = loadPolicy(failedPolicy([ns.name], {}, { set: prefix })).policy;
  const clients = kubeClients(sharedCluster().kubeConfig());
  const handle = cliHandle({
    clients,
    policy,
    dryRun: false,
    chunkSize: 500,
    protectedNamespaces: ['kube-system'],
    ledgerNamespace: ns.name,
    budgetMs: 60_000,
    log: pino({ level: 'silent' }),
    notifier: Notifier.off(),
    metrics: new MetricsRecorder({}),
  });
  const changed: string[] = [];
  const hooked = { ...handle, writer: (o?: { dryRun?: boolean }) => changingFirst(handle.writer(o), change, changed) };
  try {
    const summary = await runPass(hooked, { policy, dryRun, budgetMs: 60_000 });
    // Each pod did change under its first removal: the race this test is about happened.
    expect(changed.sort()).toEqual(names);
    return { summary, names, left: (await podNames(ns.name)).filter((n) => n.startsWith(prefix)) };
  } finally {
    clients.close();
  }
}

describe('a pass whose pods change between its LIST and its write (409)', () => {
  it('reads each again and, still selected as stored, removes it in the same pass', async () => {
    const { summary, left } = await passChangingFirst('still', CHANGES.touched);
    expect(summary.outcomes).toEqual({ deleted: 3 });
    expect(left).toEqual([]);
  });

  it('reads each again and, no longer selected as stored, leaves it: stale, saying why as stored', async () => {
    const { summary, names, left } = await passChangingFirst('away', CHANGES.away);
    expect(summary.outcomes).toEqual({ stale: 3 });
    expect(summary.results.map((r) => r.message)).toEqual(
      names.map(() => expect.stringMatching(/changed since its removal was decided .*as stored: no strategy selects it/)),
    );
    expect(left.sort()).toEqual(names);
  });

  it('in a plan (dryRun) the pod read again goes through the same dry run: nothing is removed', async () => {
    const { summary, names, left } = await passChangingFirst('plan', CHANGES.touched, true);
    expect(summary.outcomes).toEqual({ deleted: 3 });
    expect(summary.results.every((r) => r.dryRun)).toBe(true);
    expect(left.sort()).toEqual(names);
  });
});

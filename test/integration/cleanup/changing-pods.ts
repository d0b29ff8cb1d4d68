// What the changed-under-write tests share (a pass, a descheduler cycle, the one-pod path): a
// handle over the shared cluster, as the CLI builds it, whose writer first changes each pod it
// is about to remove through the API server (test-only), so the removal's resourceVersion
// precondition no longer holds and the API server answers 409. The change is real: a write to
// the stored pod, made on cue instead of raced for.
import { CoreV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { CleanupHandle } from '../../../shared/cleanup/handle.js';
import { cliHandle, type CliHandleOptions } from '../../../shared/hosts/cli/handle.js';
import { kubeClients } from '../../../shared/kube/clients.js';
import type { ClusterWriter } from '../../../shared/kube/writer.js';
import { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import { Notifier } from '../../../shared/notify/notifier.js';
import type { Policy } from '../../../shared/policy/policy.js';
import { sharedCluster } from '../../harness/index.js';

/** A JSON patch that changes pod `name` (its own name is what a test may label or annotate it with). */
export type PodChange = (name: string) => object[];

export interface ChangingOptions {
  /** Every removal changes its pod first; by default only each pod's first. */
  every?: boolean;
  writerOptions?: CliHandleOptions['writerOptions'];
}

export interface ChangingHandle {
  handle: CleanupHandle;
  /** The pods changed, once per removal that changed one, in order. */
  changed: string[];
  log: CliHandleOptions['log'];
  metrics: MetricsRecorder;
  close(): void;
}

/** A CLI handle over `policy` in `namespace` (its ledger there too) whose writer changes a pod before removing it. */
export function changingHandle(policy: Policy, namespace: string, change: PodChange, o: ChangingOptions = {}): ChangingHandle {
  const clients = kubeClients(sharedCluster().kubeConfig());
  const log = pino({ level: 'silent' });
  const metrics = new MetricsRecorder({});
  const handle = cliHandle({
    clients,
    policy,
    dryRun: false,
    chunkSize: 500,
    protectedNamespaces: ['kube-system'],
    ledgerNamespace: namespace,
    budgetMs: 60_000,
    log,
    notifier: Notifier.off(),
    metrics,
    ...(o.writerOptions ? { writerOptions: o.writerOptions } : {}),
  });
  const changed: string[] = [];
  const core = sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
  const changing = (writer: ClusterWriter): ClusterWriter => {
    const removePod = writer.removePod.bind(writer);
    writer.removePod = async (target, ...rest) => {
      if (o.every || !changed.includes(target.name)) {
        changed.push(target.name);
        await core.patchNamespacedPod({ name: target.name, namespace: target.namespace ?? namespace, body: change(target.name) });
      }
      return removePod(target, ...rest);
    };
    return writer;
  };
  return { handle: { ...handle, writer: (w) => changing(handle.writer(w)) }, changed, log, metrics, close: () => clients.close() };
}

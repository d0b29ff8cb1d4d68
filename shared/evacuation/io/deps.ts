// What evacuation's I/O works with, in a file of its own so the pass, the responder and the
// interpreter they share import it downward only.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Admission } from '../../kube/admission.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Logger } from '../../log.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import type { Notifier } from '../../notify/notifier.js';
import type { EvacuationConfig } from '../config.js';
import type { LifecycleReader } from './eviction-request.js';
import type { KubeVirtReader } from './kubevirt.js';
import type { SlotStore } from './slot-store.js';

export interface EvacuationDeps {
  /** Reads: pods, the brakes' ledger (the slots) and the previous release's slots. */
  core: Pick<CoreV1Api, 'readNamespacedPod' | 'listNamespacedPod' | 'listPodForAllNamespaces' | 'readNamespacedConfigMap'>;
  /** Reads of KubeVirt objects, and of lifecycle.k8s.io's. */
  custom: KubeVirtReader & LifecycleReader;
  /** Every write: annotations, evictions, migrations, the slots, Events. */
  writer: ClusterWriter;
  slotStore: SlotStore;
  /**
   * What an evacuation's first start asks before it is sent (kube/admission.ts), when evacuation
   * is charged to the policy's limits (EVACUATION_CHARGE_BUDGETS); absent: its slots alone pace it.
   */
  admission?: Admission;
  config: EvacuationConfig;
  /** Set when lifecycle.k8s.io is served (and not turned off): new attempts ask through an EvictionRequest. */
  evictionRequests?: { requester: string };
  now(): number;
  log: Logger;
  /** The process's CloudEvents out (notify/notifier.ts). */
  notifier: Notifier;
  /** The process's metrics recorder (metrics/recorder.ts): slots found unreadable or lost. */
  metrics: MetricsRecorder;
}

// Cluster access for the functions and the CLI: thin, typed, idempotent.
export { loadKubeConfig, describeKubeConfig, describeSource, KubeConfigError, type KubeConfigSource, type LoadKubeConfigOptions } from './config.js';
export { kubeClients, type KubeClients, type KubeClientOptions } from './clients.js';
export { classifyKubeError, toKubeError, scrub, KubeError, TransientKubeError, KubeRequestError, type KubeErrorKind, type KubeFailure } from './errors.js';
export {
  deletePod,
  evictPod,
  type PodTarget,
  type PodDeleter,
  type PodEvictor,
  type WriteOptions,
  type WriteResult,
  type DeleteOutcome,
  type EvictOutcome,
} from './pods.js';
export { recordPodEvent, REPORTING_CONTROLLER, type PodEvent, type RecordOptions, type RecordResult, type EventWriter } from './pod-event.js';
export { listPods, type ListPodsOptions, type PodPage, type PodLister } from './list.js';
export { getPod, type PodReader } from './get.js';
export { toPod } from './from-client.js';
export { ReportWriter, REPORTS_FIELD_MANAGER, type ReportsApi, type ReportBody } from './reports.js';

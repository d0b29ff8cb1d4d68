// shared/hosts/bridge: the local stand-in for Knative's ApiServerSource (Resource mode). Watches
// kinds in a cluster and hands one event per change to a sink: a CloudEvent POSTed to a URL
// with Knative's retries (`kube-tidy bridge`), or a call in process (the standalone program).
export { startBridge } from './bridge.js';
export type { Bridge, BridgeOptions, BridgeStats, InProcessSink } from './bridge.js';
export { KINDS, parseKinds, collectionPath, UnknownKindError } from './kinds.js';
export type { KindInfo } from './kinds.js';
export { deliver, deliverWith, backoffDelay, classify, isRetryableStatus, DEFAULT_RETRY } from './deliver.js';
export type { Attempt, DeliveryResult, RetryOptions, RetryPolicy } from './deliver.js';
export { KeyedQueue } from './queue.js';
export { silentLogger } from './log.js';
export type { Logger } from './log.js';

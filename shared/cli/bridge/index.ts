// shared/bridge: the local stand-in for Knative's ApiServerSource (Resource mode). Watches
// kinds in a cluster and POSTs one CloudEvent per change to a sink, with Knative's retries.
export { startBridge } from './bridge.js';
export type { Bridge, BridgeOptions, BridgeStats } from './bridge.js';
export { KINDS, parseKinds, collectionPath, UnknownKindError } from './kinds.js';
export type { KindInfo } from './kinds.js';
export { deliver, backoffDelay, classify, isRetryableStatus, DEFAULT_RETRY } from './deliver.js';
export type { Attempt, DeliveryResult, RetryPolicy } from './deliver.js';
export { KeyedQueue } from './queue.js';
export { silentLogger } from './log.js';
export type { Logger } from './log.js';

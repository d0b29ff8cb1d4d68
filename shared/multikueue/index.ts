// MultiKueue cleanup: cascade a manager-side deletion into every worker, sweep what was missed.
export { multiKueueParts, type MultiKueue, type MultiKueueOverrides } from './parts.js';
export { readMultiKueueConfig, type MultiKueueConfig } from './config.js';
export { cascadeDelete, deleteRemote, type CascadeOutcome, type CascadeResult } from './cascade.js';
export { readManager, sweepWorker, type SweepOptions, type WorkerReport } from './sweep.js';
export { orphans, keyOf, kindKey, type OrphanDecision, type OrphanPlan, type WorkerSnapshot, type ManagerSnapshot } from './orphans.js';
export { remoteVerdict, type Verdict } from './verdict.js';
export { Workers, type Worker } from './workers.js';
export { parseKind, matchKind, BATCH_JOB, WORKLOAD, type JobKind } from './kinds.js';
export { ORIGIN_LABEL, PREBUILT_WORKLOAD_LABEL, JOB_UID_LABEL, JOB_NAME_LABEL, KUEUE_PODSET_LABEL } from './labels.js';
export { WITNESS_CONFIGMAP } from './witness.js';

// Cleanup beyond pods (issue 38): finished Jobs, unused PersistentVolumeClaims and the owners of
// finished Kueue Workloads, by the condition their owning controller writes. The family's entry:
// its handle (what it takes of the process) and its pass, which every path runs.
export { objectsHandle, type ObjectsHandle, type ObjectsSettings } from './handle.js';
export { runObjectsPass, type ObjectsOrigin, type ObjectsPassOptions, type ObjectsPassSummary } from './io/pass.js';
export type { ObjectOutcome, ObjectResult } from './io/act.js';
export type { ObjectDecision, ObjectEligible, ObjectKept } from './core/model.js';
export { objectsAnswer, type ObjectsAnswer } from './io/answer.js';
export { objectsStep, type ObjectsStep } from './io/step.js';
export { ObjectReports, type ObjectReportsOptions, type ReportsWritten } from './reports/index.js';
export { ObjectsDue, type ObjectDueEntry, type ObjectsDueOptions } from './io/due.js';
export { ObjectsTick, type ObjectsTickResult } from './io/due-tick.js';
export { storedUid } from './io/lookup.js';
export { anyRuleMatches } from './core/decide.js';
export { controlledInCopy, hintOf } from './core/hint.js';
export { discoverTtlKinds, ttlEvent, ttlKindNames, ttlKindOf, ttlWatchKinds, type TtlEvent, type TtlEventAnswer, type WatchedKind } from './io/ttl-event.js';

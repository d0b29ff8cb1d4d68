// What cleanup beyond pods (index.ts) takes instead of the whole process: what a pass reads,
// the writer, the admission port its deletes ask, the clock, the configured policy and the
// settings it obeys. The runtime's targets build it with `objectsHandle`; a host without a
// Runtime (the CLI) builds one from what it has, as defrag's handle is built.
import type { Admission } from '../kube/admission.js';
import type { ClusterWriter } from '../kube/writer.js';
import type { Logger } from '../log.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import type { Notifier } from '../notify/notifier.js';
import type { Policy } from '../policy/policy.js';
import { familyEdges } from '../runtime/family-edges.js';
import type { Runtime } from '../runtime/runtime.js';
import type { ObjectsReader } from './io/read.js';

export interface ObjectsSettings {
  /** Never touched, whatever a rule says (PROTECTED_NAMESPACES): their objects are kept and said so. */
  protectedNamespaces: readonly string[];
  /** Every pass only plans (DRY_RUN). */
  dryRun: boolean;
}

export interface ObjectsHandle {
  settings: ObjectsSettings;
  /** The configured policy as it is now: its `kubeTidy.objects` rules and brakes. */
  policy(): Policy;
  readonly reader: ObjectsReader;
  /** The one writer (kube/writer.ts): the settings' dry run unless `dryRun` says more. */
  writer(opts: { dryRun: boolean }): ClusterWriter;
  /** What every delete asks first and settles after (kube/admission.ts), charged per kind. `dryRun`: writes nothing, defers within the process. */
  admission(opts: { dryRun: boolean }): Admission;
  now(): number;
  log: Logger;
  /** The process's CloudEvents out: one per decision (notify/objects.ts). */
  notifier: Notifier;
  metrics: MetricsRecorder;
}

/** The handle of a function process: the runtime's clients, writer, brakes and notifier. */
export function objectsHandle(rt: Runtime): ObjectsHandle {
  // Object deletes spend the same ledger as every removal, counted per kind (brakes/core/meters.ts
  // scopeKey), so a Job rate never spends the pods' budget.
  return familyEdges(rt, 'objects');
}

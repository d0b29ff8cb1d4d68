// What the gate's checks look things up in, built once per decide call by the planner
// (selection/snapshot.ts `indexSnapshot`). The evictor reads it and selection builds it, so it
// lives here, a leaf of types below both: the evictor stands below the planner that calls it.
import type { Namespace, Node } from '../model/objects.js';
import type { LabelMatcher } from '../policy/label-selector.js';
import type { Resources } from './node-fit.js';

/** Built once per decide call so that every check is a lookup. */
export interface SnapshotIndex {
  nodes?: Map<string, Node>;
  namespaces?: Map<string, Namespace>;
  pdbsByNamespace?: Map<string, LabelMatcher[]>;
  priorityValues: Map<string, number>;
  pvcStorageClasses?: ReadonlyMap<string, string>;
  /** Pods per owner uid, counted over the snapshot (DefaultEvictor's minReplicas). */
  readonly ownerCounts: Map<string, number>;
  /** What each known node has left for another pod, for node-fit checks: summed once, not per check. */
  readonly freeByNode: Map<string, Resources>;
}

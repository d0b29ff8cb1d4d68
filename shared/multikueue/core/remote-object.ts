// What MultiKueue cleanup reads of any object in a worker or the manager (job copies of every
// kind, Workloads, pods): the model's metadata and a phase. Pods listed through shared/kube
// are already of this shape, so the core sees every object one way.
import type { ObjectMeta } from '../../model/objects.js';

export interface RemoteObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  status?: { phase?: string };
}

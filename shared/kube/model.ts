// client-node's typed objects are the core's wire types at runtime (same field names;
// timestamps as Date, which shared/model/kube.ts accepts), but not to the compiler: every
// V1 field is optional and enums are plain strings (V1Toleration.operator is `string`, the
// core says 'Exists' | 'Equal'). This is the one place that crosses that gap, checking the
// only thing the core relies on and the compiler cannot see: that metadata is there.
import type { V1Pod } from '@kubernetes/client-node';
import type { Pod } from '../model/kube.js';

export function toPod(pod: V1Pod): Pod {
  if (!pod.metadata?.name) throw new Error('the API server returned a pod without metadata.name');
  return pod as unknown as Pod;
}

// Pure: a stored pod as the machine sees it (machine.ts PodView). Writes back to the pod go
// through the ClusterWriter (io/evacuate.ts), always with the resourceVersion it was read at:
// of two instances acting on the same pod, one write wins and the other gets 409, re-reads,
// and finds the winner's state.
import type { Pod } from '../../model/objects.js';
import type { PodView } from './views.js';

export const LAUNCHER_LABEL = 'kubevirt.io';

export function podView(pod: Pod): PodView {
  const m = pod.metadata;
  // KubeVirt's launcher pods: labelled virt-launcher and owned (controller) by their VMI.
  const owner = m.ownerReferences?.find((o) => o.kind === 'VirtualMachineInstance' && o.apiVersion?.startsWith('kubevirt.io/'));
  const vmi = m.labels?.[LAUNCHER_LABEL] === 'virt-launcher' ? owner?.name : undefined;
  return {
    uid: m.uid ?? '',
    ...(pod.spec?.nodeName ? { node: pod.spec.nodeName } : {}),
    ...(pod.status?.phase ? { phase: pod.status.phase } : {}),
    deleting: m.deletionTimestamp !== undefined && m.deletionTimestamp !== null,
    annotations: { ...m.annotations },
    ...(vmi ? { vmi } : {}),
  };
}

/** `pod` with `changes` applied to its annotations (null removes): what a write made of it. */
export function withAnnotations<P extends Pod>(pod: P, changes: Record<string, string | null>): P {
  const annotations = { ...pod.metadata.annotations };
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) delete annotations[k];
    else annotations[k] = v;
  }
  return { ...pod, metadata: { ...pod.metadata, annotations } };
}

// Reading a pod into the machine's view and writing its annotations back, always with the
// resourceVersion it was read at: of two instances acting on the same pod, one write wins
// and the other gets 409, re-reads, and finds the winner's state.
import { PatchStrategy, setHeaderOptions, type CoreV1Api } from '@kubernetes/client-node';
import { classifyKubeError, toKubeError } from '../kube/index.js';
import type { Pod } from '../model/objects.js';
import type { PodView } from './machine.js';

export type PodCore = Pick<CoreV1Api, 'readNamespacedPod' | 'patchNamespacedPod' | 'createNamespacedPodEviction' | 'deleteNamespacedPod'>;

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


/** Merge-patch annotations (null removes) if the pod is still at `resourceVersion`. */
export async function patchAnnotations(core: PodCore, pod: Pod, annotations: Record<string, string | null>): Promise<'written' | 'conflict' | 'gone'> {
  const { namespace = '', name = '', resourceVersion } = pod.metadata;
  try {
    await core.patchNamespacedPod(
      { namespace, name, body: { metadata: { resourceVersion, annotations } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    return 'written';
  } catch (e) {
    const kind = classifyKubeError(e).kind;
    if (kind === 'conflict') return 'conflict';
    if (kind === 'not-found') return 'gone';
    throw toKubeError(e, `annotate pod ${namespace}/${name}`);
  }
}

// Small manifest builders and API helpers shared by the control-plane tests.
import { ApiException, CoreV1Api, type V1Job, type V1Pod, type V1PodSpec } from '@kubernetes/client-node';
import { EXIT_CODE_ANNOTATION, REASON_ANNOTATION } from '../../harness/index.js';

// Never pulled: kwok plays the kubelet, so the image only has to be a valid reference.
const IMAGE = 'registry.k8s.io/pause:3.10';

export interface Ending {
  exitCode?: number;
  reason?: string;
}

function annotations({ exitCode, reason }: Ending): Record<string, string> {
  return {
    ...(exitCode === undefined ? {} : { [EXIT_CODE_ANNOTATION]: String(exitCode) }),
    ...(reason === undefined ? {} : { [REASON_ANNOTATION]: reason }),
  };
}

const podSpec = (): V1PodSpec => ({ restartPolicy: 'Never', containers: [{ name: 'main', image: IMAGE }] });

export function pod(name: string, labels: Record<string, string> = {}, ending: Ending = {}): V1Pod {
  return { metadata: { name, labels, annotations: annotations(ending) }, spec: podSpec() };
}

export function job(name: string, { parallelism = 1, ...ending }: Ending & { parallelism?: number } = {}): V1Job {
  return {
    metadata: { name },
    spec: {
      parallelism,
      completions: parallelism,
      backoffLimit: 0,
      template: { metadata: { annotations: annotations(ending) }, spec: podSpec() },
    },
  };
}

/** The HTTP status of an API call: 200 for any success, else the API server's code. */
export async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
}

export async function podsOf(core: CoreV1Api, namespace: string, labelSelector: string): Promise<V1Pod[]> {
  return (await core.listNamespacedPod({ namespace, labelSelector })).items;
}

export async function phaseOf(core: CoreV1Api, namespace: string, name: string): Promise<string | undefined> {
  return (await core.readNamespacedPod({ name, namespace })).status?.phase;
}

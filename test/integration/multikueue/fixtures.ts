// Builders for the MultiKueue tests: the manager's Job (submitted to Kueue: its queue-name
// label; left alone by the manager's own job controller through spec.managedBy, as with real
// MultiKueue), its copy in a worker (what
// Kueue creates: same namespace and name, origin and prebuilt-workload labels, pods on kwok),
// and the CloudEvent Knative's ApiServerSource sends when the manager's Job is deleted.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatchV1Api, CoreV1Api, CustomObjectsApi, V1Job, V1OwnerReference, V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import { httpMessage, toApiServerSourceEvent, type HttpMessage, type HttpMode, type KubeObject } from '../../../shared/cloudevents/index.js';
import { pingRequest } from '../../fixtures/events/requests.js';
import { JOB_NAME_LABEL, ORIGIN_LABEL, PREBUILT_WORKLOAD_LABEL, QUEUE_NAME_LABEL } from '../../../shared/multikueue/index.js';
import { EXIT_CODE_ANNOTATION, waitFor, type Cluster } from '../../harness/index.js';

/** One cluster's clients (env.ts builds them). */
export interface Apis {
  cluster: Cluster;
  core: CoreV1Api;
  batch: BatchV1Api;
  custom: CustomObjectsApi;
}

export function writePolicy(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-mk-')), 'policy.json');
  const policy = {
    apiVersion: 'descheduler/v1alpha2',
    kind: 'DeschedulerPolicy',
    profiles: [{ name: 'p', pluginConfig: [{ name: 'PodLifeTime', args: { states: ['Failed'] } }], plugins: { deschedule: { enabled: ['PodLifeTime'] } } }],
  };
  writeFileSync(file, JSON.stringify(policy));
  return file;
}

const template = (exitCode?: number): V1PodTemplateSpec => ({
  metadata: { annotations: exitCode === undefined ? {} : ({ [EXIT_CODE_ANNOTATION]: String(exitCode) } as Record<string, string>) },
  spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
});

/** What a job submitted to Kueue carries (its LocalQueue); `queued: false` for a Job Kueue never saw. */
export const QUEUED = { [QUEUE_NAME_LABEL]: 'user-queue' };

/** The manager's Job: MultiKueue owns it, so the manager runs no pods for it. */
export async function managerJob(m: Apis, namespace: string, name: string, o: { queued?: boolean } = {}): Promise<V1Job> {
  const labels = o.queued === false ? {} : QUEUED;
  const body: V1Job = {
    metadata: { name, namespace, labels },
    spec: { managedBy: 'kueue.x-k8s.io/multikueue', parallelism: 2, completions: 2, template: template() },
  };
  return m.batch.createNamespacedJob({ namespace, body });
}

export interface CopyOptions {
  /** The origin label; `null` for none. Default "multikueue". */
  origin?: string | null;
  /** Pods Running (no exit code) or Completed (exit 0). */
  state?: 'Running' | 'Completed';
  pods?: number;
  /** E.g. the JobSet a child Job belongs to. */
  ownerReferences?: V1OwnerReference[];
}

/** The copy Kueue would create in a worker, with its pods running (or completed) on kwok. */
export async function copyJob(w: Apis, namespace: string, name: string, o: CopyOptions = {}): Promise<{ job: V1Job; pods: V1Pod[] }> {
  const pods = o.pods ?? 2;
  const labels: Record<string, string> = { [PREBUILT_WORKLOAD_LABEL]: `job-${name}-abcde` };
  if (o.origin !== null) labels[ORIGIN_LABEL] = o.origin ?? 'multikueue';
  const completed = o.state === 'Completed';
  const body: V1Job = {
    metadata: { name, namespace, labels, ownerReferences: o.ownerReferences },
    spec: { parallelism: pods, completions: pods, template: template(completed ? 0 : undefined) },
  };
  const job = await w.batch.createNamespacedJob({ namespace, body });
  const want = completed ? 'Succeeded' : 'Running';
  const ready = await waitFor(`${w.cluster.name} ${namespace}/${name} pods ${want}`, async () => {
    const list = (await w.core.listNamespacedPod({ namespace, labelSelector: `${JOB_NAME_LABEL}=${name}` })).items;
    return list.length === pods && list.every((p) => p.status?.phase === want) ? list : undefined;
  });
  // A Completed copy is settled once the job controller has said so: until then it writes the
  // Job's status again (succeeded, SuccessCriteriaMet, Complete), and a sweep that read it
  // before one of those writes finds it changed under its delete (stale), as it should.
  if (completed)
    await waitFor(`${w.cluster.name} ${namespace}/${name} Complete`, async () =>
      (await w.batch.readNamespacedJob({ namespace, name })).status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'),
    );
  return { job, pods: ready };
}

export const podsOf = async (w: Apis, namespace: string, job: string) =>
  (await w.core.listNamespacedPod({ namespace, labelSelector: `${JOB_NAME_LABEL}=${job}` })).items;

export const noPodsLeft = (w: Apis, namespace: string, job: string) =>
  waitFor(`no pods of ${namespace}/${job} in ${w.cluster.name}`, async () => (await podsOf(w, namespace, job)).length === 0, { timeoutMs: 30_000 });

export async function exists(w: Apis, namespace: string, name: string): Promise<boolean> {
  try {
    await w.batch.readNamespacedJob({ namespace, name });
    return true;
  } catch {
    return false;
  }
}

/** What ApiServerSource (Resource mode) posts when `object` is deleted in the manager. */
export function deleteEvent(m: Apis, object: object, mode: HttpMode = 'binary'): HttpMessage {
  return httpMessage(toApiServerSourceEvent('delete', JSON.parse(JSON.stringify(object)) as KubeObject, m.cluster.server), mode);
}

export const tick = (): HttpMessage => pingRequest('orphans');

export { send as post } from '../functions/setup.js';

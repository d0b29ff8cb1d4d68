// A stand-in for Kueue's Workload controller, playing the one rule the objects tests need: when
// a Job that controls a Workload has finished, the Workload is declared Finished. No Kueue
// controller runs here (sigs.k8s.io/kueue v0.17.0's manager is 1,627 packages to build; admitting
// a Workload needs a ResourceFlavor, whose CRD is not among the Kueue CRDs the harness fetches
// (infra/local/crds/sources.ts), and webhooks the API server reaches through a Service), so this plays that rule and nothing else: no
// admission, no quota, no suspending of the Job.
//
// Kueue's rule, as its source states it (kubernetes-sigs/kueue):
// - pkg/controller/jobframework/reconciler.go, JobReconciler.ReconcileGenericJob, step "2. handle
//   job is finished": when job.Finished(ctx) says finished and the workload is not yet finished,
//   workload.Finish is called with reason Succeeded, or Failed when the job did not succeed,
//   and the job's message.
// - pkg/controller/jobs/job/job_controller.go, (*Job).Finished: a batch/v1 Job is finished when
//   it has a condition Complete or Failed with status True; success unless it is Failed; the
//   message is that condition's.
// - pkg/workload (the finish helpers), SetFinishedCondition: the Workload's condition
//   type Finished, status True, lastTransitionTime now, that reason and message, and
//   observedGeneration the Workload's generation; written through the status subresource.
// The Workload it plays for is found as Kueue's job reconciler finds it: the one whose
// controller ownerReference is the Job (same uid).
import { PatchStrategy, setHeaderOptions, type BatchV1Api, type CustomObjectsApi, type V1Job } from '@kubernetes/client-node';

const WORKLOADS = { group: 'kueue.x-k8s.io', version: 'v1beta2', plural: 'workloads' } as const;

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

interface Workload {
  metadata: { name: string; namespace: string; generation?: number; ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[] };
  status?: { conditions?: Condition[] };
}

/** (*Job).Finished: the first Complete or Failed condition that is True, and whether it is a success. */
function finishedOf(job: V1Job): { success: boolean; message: string } | undefined {
  const c = job.status?.conditions?.find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  return c && { success: c.type !== 'Failed', message: c.message ?? '' };
}

const isFinished = (w: Workload) => w.status?.conditions?.some((c) => c.type === 'Finished' && c.status === 'True') === true;

export interface KueueWorkloadStandin {
  /** One reconcile over every Workload of the namespace: the ones it declared Finished. */
  reconcile(): Promise<string[]>;
  stop(): void;
}

/** Starts the stand-in over one namespace, reconciling every `everyMs` until stopped. */
export function startKueueWorkloadStandin(o: { custom: CustomObjectsApi; batch: BatchV1Api; namespace: string; everyMs?: number }): KueueWorkloadStandin {
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  async function finishOne(w: Workload): Promise<boolean> {
    const owner = w.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'Job');
    if (!owner || isFinished(w)) return false;
    const job = await o.batch.readNamespacedJob({ namespace: o.namespace, name: owner.name }).catch(() => undefined);
    // A Job of the same name but another uid is not this Workload's Job.
    if (!job || job.metadata?.uid !== owner.uid) return false;
    const done = finishedOf(job);
    if (!done) return false;
    const finished: Condition = {
      type: 'Finished',
      status: 'True',
      reason: done.success ? 'Succeeded' : 'Failed',
      message: done.message,
      lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      ...(w.metadata.generation !== undefined ? { observedGeneration: w.metadata.generation } : {}),
    };
    const conditions = [...(w.status?.conditions ?? []).filter((c) => c.type !== 'Finished'), finished];
    await o.custom.patchNamespacedCustomObjectStatus(
      { ...WORKLOADS, namespace: o.namespace, name: w.metadata.name, body: { status: { conditions } } },
      mergePatch,
    );
    return true;
  }
  async function reconcile(): Promise<string[]> {
    const list = (await o.custom.listNamespacedCustomObject({ ...WORKLOADS, namespace: o.namespace })) as { items: Workload[] };
    const done: string[] = [];
    for (const w of list.items) if (await finishOne(w)) done.push(w.metadata.name);
    return done;
  }
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    if (stopped) return;
    void reconcile()
      .catch(() => undefined)
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, o.everyMs ?? 300);
      });
  };
  loop();
  return {
    reconcile,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

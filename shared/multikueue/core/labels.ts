// Labels written by Kueue (MultiKueue remote copies) and by the Job controller (pods).
export const ORIGIN_LABEL = 'kueue.x-k8s.io/multikueue-origin';
export const PREBUILT_WORKLOAD_LABEL = 'kueue.x-k8s.io/prebuilt-workload-name';
export const JOB_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
/** Set on pod templates by a worker's Kueue when it starts a job: "Kueue ran this". */
export const KUEUE_PODSET_LABEL = 'kueue.x-k8s.io/podset';
/**
 * On the manager's job when it is submitted to Kueue (Kueue's `constants.QueueLabel`; its
 * deprecated annotation has the same key). Only a submitted job can be admitted through
 * MultiKueue, so only such a job has remote copies to cascade to.
 */
export const QUEUE_NAME_LABEL = 'kueue.x-k8s.io/queue-name';

export { RemoveFailedPods, removeFailedPodsCriteria } from './remove-failed-pods.js';
export { RemoveFailedPodsArgsSchema, type RemoveFailedPodsArgs, type RemoveFailedPodsInput } from './schema.js';

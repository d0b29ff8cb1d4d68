export { RemoveFailedPods, removeFailedPodsCriteria } from './remove-failed-pods.js';
export { RemoveFailedPodsArgsSchema, type RemoveFailedPodsArgs } from './schema.js';

export { RemovePodsHavingTooManyRestarts, tooManyRestartsCriteria } from './too-many-restarts.js';
export { RemovePodsHavingTooManyRestartsArgsSchema, type RemovePodsHavingTooManyRestartsArgs } from './schema.js';

export { RemovePodsHavingTooManyRestarts, tooManyRestartsCriteria } from './too-many-restarts.js';
export {
  RemovePodsHavingTooManyRestartsArgsSchema,
  type RemovePodsHavingTooManyRestartsArgs,
  type RemovePodsHavingTooManyRestartsInput,
} from './schema.js';

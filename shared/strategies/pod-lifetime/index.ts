export { PodLifeTime, podLifeTimeCriteria } from './pod-lifetime.js';
export { PodLifeTimeArgsSchema, POD_LIFETIME_STATES, type PodLifeTimeArgs } from './schema.js';

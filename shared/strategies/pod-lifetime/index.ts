export { PodLifeTime, podLifeTimeCriteria } from './pod-lifetime.js';
export { PodLifeTimeArgsSchema, POD_LIFETIME_STATES, type PodLifeTimeArgs, type PodLifeTimeInput } from './schema.js';

// Defragmentation: plan the moves and swaps that free whole nodes (see README "Defragmentation").
export { planDefrag } from './plan.js';
export type * from './types.js';

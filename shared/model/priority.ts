// Kubernetes' built-in priorities: the two classes every cluster has (so a policy may name
// them without reading PriorityClasses) and the threshold above which a pod is system-critical.

export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

export const BUILT_IN_PRIORITY_CLASSES: ReadonlyMap<string, number> = new Map([
  ['system-cluster-critical', SYSTEM_CRITICAL_PRIORITY],
  ['system-node-critical', SYSTEM_CRITICAL_PRIORITY + 1000],
]);

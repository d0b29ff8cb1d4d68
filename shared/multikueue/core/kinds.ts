// The job kinds MultiKueue copies into workers, as configured (`group/version/Kind`, e.g.
// `batch/v1/Job`, `jobset.x-k8s.io/v1alpha2/JobSet`, `ray.io/v1/RayJob`). A remote copy has
// the same kind, namespace and name as the manager's object, so a GVK is all a cascade needs.

export interface JobKind {
  group: string;
  version: string;
  kind: string;
  /** The resource name in URLs. Lowercased kind + "s" unless given (`.../Kind:plural`). */
  plural: string;
}

export const KIND_PATTERN = /^[a-z0-9.-]+\/v[0-9a-z]+\/[A-Z][A-Za-z0-9]*(:[a-z0-9]+)?$/;

export const BATCH_JOB: JobKind = { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs' };
export const WORKLOAD: JobKind = { group: 'kueue.x-k8s.io', version: 'v1beta2', kind: 'Workload', plural: 'workloads' };

export function parseKind(spec: string): JobKind {
  if (!KIND_PATTERN.test(spec)) throw new Error(`"${spec}" is not group/version/Kind`);
  const [group = '', version = '', rest = ''] = spec.split('/');
  const [kind = '', plural] = rest.split(':');
  return { group, version, kind, plural: plural ?? `${kind.toLowerCase()}s` };
}

export const apiVersionOf = (k: JobKind): string => `${k.group}/${k.version}`;

/** The kind an event's object has, when it is one of `kinds` (the version may differ). */
export function matchKind(kinds: JobKind[], apiVersion: string, kind: string): JobKind | undefined {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return kinds.find((k) => k.kind === kind && k.group === group);
}

export const isBatchJob = (k: JobKind): boolean => k.group === 'batch' && k.kind === 'Job';

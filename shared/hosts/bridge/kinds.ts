// The kinds the bridge can watch. One line per kind: the API group/version the objects carry
// and the resource (plural) the watch URL names. Adding a kind is adding a line here.

export interface KindInfo {
  kind: string;
  apiVersion: string;
  resource: string;
}

export const KINDS: Readonly<Record<string, Omit<KindInfo, 'kind'>>> = {
  Pod: { apiVersion: 'v1', resource: 'pods' },
  Job: { apiVersion: 'batch/v1', resource: 'jobs' },
  // Cleanup beyond pods (objectUpdated): watched only when a policy's kubeTidy.objects rule names the kind.
  PersistentVolumeClaim: { apiVersion: 'v1', resource: 'persistentvolumeclaims' },
  Workload: { apiVersion: 'kueue.x-k8s.io/v1beta2', resource: 'workloads' },
};

export class UnknownKindError extends Error {}

/** "Pod,Job" -> the table's entries, each once; every unknown name is reported at once. */
export function parseKinds(list: string): KindInfo[] {
  const names = [
    ...new Set(
      list
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
  if (names.length === 0) throw new UnknownKindError(`no kinds given (known: ${Object.keys(KINDS).join(', ')})`);
  const unknown = names.filter((n) => KINDS[n] === undefined);
  if (unknown.length > 0) {
    throw new UnknownKindError(
      `unknown kind${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')} (known: ${Object.keys(KINDS).join(', ')})`,
    );
  }
  return names.map((kind) => ({ kind, ...KINDS[kind]! }));
}

/** The collection URL path: /api/v1/pods, /api/v1/namespaces/ns/pods, /apis/batch/v1/jobs. */
export function collectionPath(info: KindInfo, namespace?: string): string {
  const root = info.apiVersion.includes('/') ? `/apis/${info.apiVersion}` : `/api/${info.apiVersion}`;
  const scope = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${root}${scope}/${info.resource}`;
}

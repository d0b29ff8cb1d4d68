// The CloudEvent `subject` Knative's ApiServerSource sets, reproduced so the local bridge
// sends what production sends. Knative builds a selfLink-like path (pkg/adapter/apiserver/
// events/events.go, createSelfLink):
//   /apis/<apiVersion>/namespaces/<namespace>/<resource>/<name>
// - core kinds also go under /apis/ (not /api/): `/apis/v1/namespaces/ns/pods/p`
// - grouped kinds keep group/version: `/apis/batch/v1/namespaces/ns/jobs/j`
// - an apiVersion with a dot and no slash (a bare group) gets `/versionUnknown` appended
// - the resource is guessed from the kind by apimachinery's UnsafeGuessKindToResource
// - cluster-scoped objects keep the namespaces segment with an empty name: `namespaces//nodes/n`

export interface SubjectParts {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** Lower-cased plural as apimachinery's UnsafeGuessKindToResource guesses it. */
export function guessResource(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular === '') return '';
  // "Endpoints" is already plural: apimachinery lists it as unpluralized.
  if (singular.endsWith('endpoints')) return singular;
  if (singular.endsWith('s')) return `${singular}es`;
  if (singular.endsWith('y')) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

export function apiServerSubject(o: SubjectParts): string {
  const version = o.apiVersion.includes('.') && !o.apiVersion.includes('/') ? `${o.apiVersion}/versionUnknown` : o.apiVersion;
  return `/apis/${version}/namespaces/${o.namespace ?? ''}/${guessResource(o.kind)}/${o.name}`;
}

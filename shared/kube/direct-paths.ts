// The paths and queries of the direct requests (direct-pods.ts, direct-objects.ts), written as
// client-node writes them for the same calls, in one place: a pod is a resource like any other
// here, so its requests and the objects' cannot drift apart in how a name or a page is encoded.

/** An API resource by group (empty: the core group), version and plural, as client-node's CustomObjectsApi takes it. */
export interface Resource {
  group: string;
  version: string;
  plural: string;
}

/** Encoded as client-node encodes path and query parameters; the lifecycle's path guard refuses what encoding lets through ('..'). */
const segment = encodeURIComponent;

/** `/api/v1[/namespaces/<ns>]/<plural>[/<name>]`, or `/apis/<group>/<version>/...` outside the core group. */
export function resourcePath(r: Resource, namespace: string | undefined, name?: string): string {
  const root = r.group === '' ? `/api/${segment(r.version)}` : `/apis/${segment(r.group)}/${segment(r.version)}`;
  const scope = namespace === undefined ? '' : `/namespaces/${segment(namespace)}`;
  return `${root}${scope}/${segment(r.plural)}${name === undefined ? '' : `/${segment(name)}`}`;
}

/** `path` with the parameters that are set (an empty one is left out, as client-node leaves it out), in the order given. */
export function withQuery(path: string, params: readonly (readonly [string, string | number | undefined])[]): string {
  const query = params.flatMap(([k, v]) => (v === undefined || v === '' ? [] : [`${k}=${segment(v)}`])).join('&');
  return query ? `${path}?${query}` : path;
}

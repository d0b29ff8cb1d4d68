import { parseOrThrow } from './errors.js';
import { kubeObjectSchema, refSchema } from './schemas.js';
import type { EventOrigin, ObjectEvent, PartialOrigin, ReferenceEvent, TickEvent, Verb } from './types.js';

// Knative ApiServerSource and PingSource (knative.dev/eventing pkg/apis/sources, adapter
// pkg/adapter/apiserver/events). Resource mode sends the whole object as data (on update only
// the new one: the informer's old object is dropped); Reference mode sends just a reference.

export const KNATIVE_RESOURCE_PREFIX = 'dev.knative.apiserver.resource.';
export const KNATIVE_REF_PREFIX = 'dev.knative.apiserver.ref.';
export const KNATIVE_PING_TYPE = 'dev.knative.sources.ping';

const VERBS: readonly Verb[] = ['add', 'update', 'delete'];

/** `dev.knative.apiserver.resource.update` for verb `update`. */
export function resourceEventType(verb: Verb): string {
  return `${KNATIVE_RESOURCE_PREFIX}${verb}`;
}

/** The mode and verb a Knative ApiServerSource type names, or undefined for any other type. */
export function parseApiServerType(type: string): { mode: 'resource' | 'ref'; verb: Verb } | undefined {
  for (const [prefix, mode] of [
    [KNATIVE_RESOURCE_PREFIX, 'resource'],
    [KNATIVE_REF_PREFIX, 'ref'],
  ] as const) {
    if (!type.startsWith(prefix)) continue;
    const verb = VERBS.find((v) => v === type.slice(prefix.length));
    return verb === undefined ? undefined : { mode, verb };
  }
  return undefined;
}

// corev1.ObjectReference as Knative marshals it (schemas.ts): every field omitempty, so a
// cluster-scoped object has no namespace, and there is never a uid (hence the caller's lookup).

function originOf(base: PartialOrigin, bridge: EventOrigin['bridge']): EventOrigin {
  return { ...base, bridge: base.bridge ?? bridge };
}

/** Resource mode: the data is the object itself. `root` names where data sat in the request. */
export function decodeResourceEvent(verb: Verb, data: unknown, root: string, origin: PartialOrigin): ObjectEvent {
  const object = parseOrThrow(kubeObjectSchema, data, root, `${resourceEventType(verb)} data`);
  return { type: 'object', verb, object, origin: originOf(origin, 'knative-apiserversource') };
}

/** Reference mode: only apiVersion/kind/name/namespace. */
export function decodeRefEvent(verb: Verb, data: unknown, root: string, origin: PartialOrigin): ReferenceEvent {
  const r = parseOrThrow(refSchema, data, root, `${KNATIVE_REF_PREFIX}${verb} data`);
  const ref = { apiVersion: r.apiVersion, kind: r.kind, name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) };
  return { type: 'reference', verb, ref, origin: originOf(origin, 'knative-apiserversource') };
}

/** PingSource data is whatever the source's spec.data says (or nothing): passed through. */
export function decodePingEvent(data: unknown, origin: PartialOrigin): TickEvent {
  return { type: 'tick', data, origin: originOf(origin, 'knative-pingsource') };
}

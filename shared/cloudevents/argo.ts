import { z } from 'zod';
import { isPlainObject } from './body.js';
import { parseOrThrow } from './errors.js';
import { kubeObjectSchema } from './schemas.js';
import type { ObjectEvent, PartialOrigin, Verb } from './types.js';

// Argo Events resource event source (argo-events pkg/eventsources/sources/resource and
// pkg/eventsources/eventing.go). The event source wraps each informer event in a CloudEvent
// with type = the event source type ("resource"), source = the EventSource's name and
// subject = the event name; data is ResourceEventData. It is the only bridge that carries the
// old object on update. A Sensor's HTTP trigger may also post that data as a plain body.

export const ARGO_RESOURCE_TYPE = 'resource';

const ARGO_TYPES = ['ADD', 'UPDATE', 'DELETE'] as const;

// A DELETE seen only through an informer relist carries cache.DeletedFinalStateUnknown,
// which Go marshals as {"Key": "ns/name", "Obj": {...}}: the object inside is the last state.
const unwrapTombstone = (v: unknown): unknown => (isPlainObject(v) && typeof v['Key'] === 'string' && 'Obj' in v ? v['Obj'] : v);

const argoSchema = z.looseObject({
  type: z.enum(ARGO_TYPES),
  body: z.preprocess(unwrapTombstone, kubeObjectSchema),
  // Argo always writes the key; it is JSON null when there is no old object (add, delete).
  oldBody: kubeObjectSchema.nullish(),
  group: z.string().optional(),
  version: z.string().optional(),
  resource: z.string().optional(),
});

/** True when `value` has the shape of Argo's ResourceEventData (used to recognise plain bodies). */
export function looksLikeArgoPayload(value: unknown): boolean {
  return isPlainObject(value) && typeof value['type'] === 'string' && (ARGO_TYPES as readonly string[]).includes(value['type']) && 'body' in value;
}

export function decodeArgoEvent(data: unknown, root: string, origin: PartialOrigin): ObjectEvent {
  const p = parseOrThrow(argoSchema, data, root, 'Argo Events resource payload');
  const verb = p.type.toLowerCase() as Verb;
  return {
    type: 'object',
    verb,
    object: p.body,
    ...(p.oldBody ? { oldObject: p.oldBody } : {}),
    origin: { ...origin, bridge: origin.bridge ?? 'argo-events' },
  };
}

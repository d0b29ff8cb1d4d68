import { isPlainObject } from './body.js';
import { BadEventError, parseOrThrow } from './errors.js';
import { kubeObjectSchema } from './schemas.js';
import type { ObjectEvent } from './types.js';

// A person (or a script) POSTs one object, e.g. `kubectl get pod p -o json | curl -d @- ...`.
// There is no watch verb behind it, so it is treated as "the object is now like this": update.

export function decodeManualObject(body: unknown): ObjectEvent {
  // `kubectl get pods -o json` yields a List; say so instead of "metadata.uid: required".
  if (isPlainObject(body) && Array.isArray(body['items'])) {
    const kind = typeof body['kind'] === 'string' ? body['kind'] : 'list';
    throw new BadEventError(400, `body is a ${kind}, not one object: post one Kubernetes object per request`);
  }
  const object = parseOrThrow(kubeObjectSchema, body, 'body', 'Kubernetes object in the request body');
  return { type: 'object', verb: 'update', object, origin: { bridge: 'manual', transport: 'plain' } };
}

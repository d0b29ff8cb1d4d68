import { z } from 'zod';
import { namespaceName, objectName, podSchema, token } from '../model/pod-schema.js';
import type { KubeObject } from './types.js';

// Cluster-scoped objects come with no namespace, and Go marshals an empty one away too; an
// empty string is normalised to absent so callers have one way to ask.
const optionalNamespace = z
  .literal('')
  .transform(() => undefined)
  .or(namespaceName)
  .optional();

const nonEmpty = z.string().min(1, 'must be a non-empty string').max(1024, 'must be at most 1024 characters');

// Loose objects: the core reads more fields (status, spec, ownerReferences) than we check
// here, and an event must carry the object exactly as the API server sent it. Names are
// checked as Kubernetes checks them, before anything can put them into a URL.
const metadataSchema = z.looseObject({
  name: objectName,
  namespace: optionalNamespace,
  // Required: writes carry preconditions.uid so a recreated namesake is never hit.
  uid: token,
  resourceVersion: token.optional(),
});

/**
 * A Kubernetes object with the identity the core needs to act on it safely. A Pod is also
 * checked against the shape the core reads (model/pod-schema.ts), so a field of the wrong
 * type is a 400 naming it rather than a failure inside a strategy.
 */
export const kubeObjectSchema = z
  .looseObject({
    apiVersion: nonEmpty,
    kind: nonEmpty,
    metadata: metadataSchema,
  })
  .superRefine((o, ctx) => {
    if (o.kind !== 'Pod') return;
    const pod = podSchema.safeParse(o);
    if (!pod.success) for (const issue of pod.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  });

/** A reference (Knative Reference mode): no uid, so the object is read before anything is decided. */
export const refSchema = z.looseObject({
  apiVersion: nonEmpty,
  kind: nonEmpty,
  name: objectName,
  namespace: optionalNamespace,
});

// Compile-time check that what the schema yields is what the rest of the code is promised.
const _yieldsKubeObject = (o: z.output<typeof kubeObjectSchema>): KubeObject => o;

export { nonEmpty };

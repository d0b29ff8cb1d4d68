import { z } from 'zod';
import { metadataSchema as podMetadataSchema, namespaceName, objectName, podSchema, token } from '../model/pod-schema.js';
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

const identified = z.looseObject({
  apiVersion: nonEmpty,
  kind: nonEmpty,
  metadata: metadataSchema,
});

/**
 * A Pod checked once against the shape the core reads (model/pod-schema.ts) and the identity
 * every object needs: one parse, where two (the identity, then the pod's shape into a copy
 * thrown away) were a tenth of what decoding a storm's event cost (issue 45, item 6).
 */
const identifiedPod = z.looseObject({
  // The identity's fields first: problems are said in this order.
  apiVersion: nonEmpty.pipe(z.literal('v1')),
  kind: nonEmpty,
  metadata: podMetadataSchema.extend({ namespace: optionalNamespace, uid: token }),
  spec: podSchema.shape.spec,
  status: podSchema.shape.status,
});

const isPod = (v: unknown) => typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Pod';

/**
 * A Kubernetes object with the identity the core needs to act on it safely. A Pod is also
 * checked against the shape the core reads (model/pod-schema.ts), so a field of the wrong
 * type is a 400 naming it rather than a failure inside a strategy.
 */
export const kubeObjectSchema = z.unknown().transform((v, ctx): z.output<typeof identified> => {
  const parsed = (isPod(v) ? identifiedPod : identified).safeParse(v);
  if (parsed.success) return parsed.data as z.output<typeof identified>;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
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

import { z } from 'zod';
import type { KubeObject } from './types.js';

const nonEmpty = z.string().min(1, 'must be a non-empty string');

// Loose objects: the core reads more fields (status, spec, ownerReferences) than we check
// here, and an event must carry the object exactly as the API server sent it.
const metadataSchema = z.looseObject({
  name: nonEmpty,
  // Cluster-scoped objects come with no namespace, and Go marshals an empty one away too;
  // an empty string is normalised to absent so callers have one way to ask.
  namespace: z
    .string()
    .optional()
    .transform((ns) => (ns === '' ? undefined : ns)),
  // Required: deletes carry preconditions.uid so a recreated namesake is never hit.
  uid: nonEmpty,
  resourceVersion: z.string().optional(),
});

/** A Kubernetes object with the identity the core needs to act on it safely. */
export const kubeObjectSchema = z.looseObject({
  apiVersion: nonEmpty,
  kind: nonEmpty,
  metadata: metadataSchema,
});

// Compile-time check that what the schema yields is what the rest of the code is promised.
const _yieldsKubeObject = (o: z.output<typeof kubeObjectSchema>): KubeObject => o;

export { nonEmpty };

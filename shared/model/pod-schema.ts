// The shape of a pod as the core reads it, checked where a pod arrives from outside (an
// event's copy, a manual POST): a field of the wrong type is a 400 naming the field, not a
// crash deep in a strategy. Only types are checked, never values a strategy decides on, and
// every object stays loose: unknown fields pass through untouched.
import { z } from 'zod';
import { dns1123LabelProblem, dns1123SubdomainProblem, tokenProblem } from './names.js';

const problem = (check: (v: unknown) => string | undefined) => (v: unknown, ctx: z.RefinementCtx) => {
  const p = check(v);
  if (p) ctx.addIssue({ code: 'custom', message: p });
};

export const namespaceName = z.string().superRefine(problem(dns1123LabelProblem));
export const objectName = z.string().superRefine(problem(dns1123SubdomainProblem));
export const token = z.string().superRefine(problem(tokenProblem));

// RFC 3339 as the API server writes it; the bound keeps Date.parse off megabyte strings.
const timestamp = z.union([
  z
    .string()
    .max(64)
    .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an RFC 3339 timestamp'),
  z.date(),
]);
const short = z.string().max(1024);
const stringMap = z.record(z.string().max(317), z.string().max(256 * 1024));
const list = <T extends z.ZodType>(item: T) => z.array(item).max(10_000);

const ownerReference = z.looseObject({ apiVersion: short.optional(), kind: short, name: short, uid: short, controller: z.boolean().optional() });

export const metadataSchema = z.looseObject({
  name: objectName,
  namespace: namespaceName.optional(),
  uid: token.optional(),
  resourceVersion: token.optional(),
  creationTimestamp: timestamp.optional(),
  deletionTimestamp: timestamp.optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  ownerReferences: list(ownerReference).optional(),
});

const containerStatus = z.looseObject({
  name: short,
  restartCount: z.number().int().min(0).optional(),
  state: z
    .looseObject({
      waiting: z.looseObject({ reason: short.optional() }).optional(),
      running: z.looseObject({ startedAt: timestamp.optional() }).optional(),
      terminated: z
        .looseObject({ exitCode: z.number().int(), reason: short.optional(), signal: z.number().int().optional(), finishedAt: timestamp.optional() })
        .optional(),
    })
    .optional(),
});

const condition = z.looseObject({ type: short, status: short, reason: short.optional(), lastTransitionTime: timestamp.optional() });
const requests = z.looseObject({ resources: z.looseObject({ requests: z.record(short, z.union([short, z.number()])).optional() }).optional() });

export const podSchema = z.looseObject({
  kind: short.optional(),
  metadata: metadataSchema,
  spec: z
    .looseObject({
      nodeName: short.optional(),
      priority: z.number().int().optional(),
      priorityClassName: short.optional(),
      volumes: list(z.looseObject({ name: short, persistentVolumeClaim: z.looseObject({ claimName: short }).optional() })).optional(),
      resourceClaims: list(z.unknown()).optional(),
      nodeSelector: stringMap.optional(),
      tolerations: list(z.looseObject({ key: short.optional(), operator: short.optional(), value: short.optional(), effect: short.optional() })).optional(),
      containers: list(requests).optional(),
      initContainers: list(requests).optional(),
    })
    .optional(),
  // Pods are core/v1 only.
  apiVersion: z.literal('v1').optional(),
  status: z
    .looseObject({
      // The five phases Kubernetes defines (core/v1 PodPhase); anything else is not a pod's.
      phase: z.enum(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']).optional(),
      reason: short.optional(),
      startTime: timestamp.optional(),
      conditions: list(condition).optional(),
      containerStatuses: list(containerStatus).optional(),
      initContainerStatuses: list(containerStatus).optional(),
      ephemeralContainerStatuses: list(containerStatus).optional(),
    })
    .optional(),
});

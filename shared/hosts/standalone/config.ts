// The standalone process's own settings (the functions' are read by the runtime as usual).
import { z } from 'zod';
import { readEnv } from '../../config/env.js';
import { namespaceName, objectName } from '../../model/pod-schema.js';
import { parseSchedule } from './core/schedule.js';

const seconds = z.coerce.number().positive();
const json = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((s, ctx) => {
      try {
        return JSON.parse(s) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);

const validSchedule = (s: string): boolean => {
  try {
    return Boolean(parseSchedule(s));
  } catch {
    return false;
  }
};

// The chart's `selectors` values: a metav1.LabelSelector per kind, and `namespaces`.
const labelValue = z.string().regex(/^[A-Za-z0-9._/-]*$/, 'not a label key or value');
const LabelSelectorSchema = z.object({
  matchLabels: z.record(labelValue, labelValue).optional(),
  matchExpressions: z
    .array(
      z.object({
        key: labelValue.min(1),
        operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
        values: z.array(labelValue).optional(),
      }),
    )
    .optional(),
});

/** Exported for the generated reference (docs/reference/environment.md). */
export const StandaloneEnv = z
  .object({
    /** Where /healthz, /readyz and /metrics are served. */
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    /** The targets this process runs, comma-separated (the chart's standalone.functions). */
    STANDALONE_FUNCTIONS: z
      .string()
      .min(1)
      .transform((s) =>
        s
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== ''),
      ),
    /** JSON: target -> schedule (five cron fields or "@every 30s"); the chart's schedules. */
    STANDALONE_SCHEDULES: json(z.record(z.string(), z.string().refine(validSchedule, 'five cron fields or "@every <n>s|m|h"'))).default({}),
    /** JSON: kind -> label selector, and `namespaces`, applied to the watch as to an ApiServerSource; the chart's selectors. */
    STANDALONE_SELECTORS: json(z.record(z.string(), LabelSelectorSchema)).default({}),
    /** This replica's identity in the Lease (the downward API). */
    POD_NAME: z.string().min(1, "set POD_NAME (the downward API) to this replica's identity"),
    // Both end up in the Lease's URL: names as Kubernetes validates them.
    POD_NAMESPACE: namespaceName,
    /** The Lease the replicas elect a leader with. */
    LEASE_NAME: objectName.default('kube-tidy-standalone'),
    /** How long a claim on the Lease holds without renewal. */
    LEASE_DURATION_SECONDS: seconds.default(15),
    /** A leader whose last renewal was sent longer ago than this writes nothing until it renews (its fence). */
    LEASE_RENEW_DEADLINE_SECONDS: seconds.default(10),
    /** How often the Lease is renewed or tried. */
    LEASE_RETRY_PERIOD_SECONDS: seconds.default(2),
    /** How long a SIGTERM waits for work in flight before the process exits. */
    SHUTDOWN_TIMEOUT_SECONDS: seconds.default(25),
  })
  .refine((c) => c.LEASE_RETRY_PERIOD_SECONDS < c.LEASE_RENEW_DEADLINE_SECONDS && c.LEASE_RENEW_DEADLINE_SECONDS < c.LEASE_DURATION_SECONDS, {
    path: ['LEASE_RENEW_DEADLINE_SECONDS'],
    message: 'need LEASE_RETRY_PERIOD_SECONDS < LEASE_RENEW_DEADLINE_SECONDS < LEASE_DURATION_SECONDS',
  });
export type StandaloneConfig = z.output<typeof StandaloneEnv>;

export const readStandaloneConfig = (env: NodeJS.ProcessEnv): StandaloneConfig => readEnv(StandaloneEnv, env);

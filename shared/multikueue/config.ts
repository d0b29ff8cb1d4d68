// MultiKueue's configuration (jobDeleted, orphanSweep), from the environment, checked at start.
import { z } from 'zod';
import { list, positiveInt, readEnv } from '../config/env.js';
import { KIND_PATTERN, parseKind } from './core/kinds.js';

const Schema = z.object({
  // Kueue's `multiKueue.origin` (default "multikueue"): only remote objects labelled with it are ever touched.
  MULTIKUEUE_ORIGIN: z
    .string()
    .regex(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/, 'must be a label value')
    .default('multikueue'),
  /** Where Kueue runs: MultiKueueCluster Secrets in the manager, kube-tidy's witness in workers. */
  KUEUE_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .default('kueue-system'),
  /** Only the clusters of this MultiKueueConfig; default every MultiKueueCluster. */
  MULTIKUEUE_CONFIG: z.string().min(1).optional(),
  /** Static workers `name=/path/kubeconfig,...` instead of discovery from the manager. */
  MULTIKUEUE_WORKERS: list.pipe(z.array(z.string().regex(/^[a-z0-9.-]+=.+$/, 'expected name=/path/to/kubeconfig'))).optional(),
  /** The kinds whose remote copies are cascaded and swept, as group/version/Kind, comma-separated. */
  MULTIKUEUE_JOB_KINDS: list
    .pipe(z.array(z.string().regex(KIND_PATTERN, 'expected group/version/Kind, e.g. batch/v1/Job')))
    .default(['batch/v1/Job'])
    .transform((kinds) => kinds.map(parseKind)),
  /** The propagation policy of kube-tidy's deletes in the workers (a Job's pods go with it either way). */
  MULTIKUEUE_PROPAGATION: z.enum(['Background', 'Foreground']).default('Background'),
  /** Deletions (and evictions) per worker per orphan sweep; the rest are reported as deferred. */
  MULTIKUEUE_SWEEP_LIMIT: positiveInt.default(200),
  /** How long a discovered worker list (and its clients) is reused before re-reading the manager. */
  MULTIKUEUE_DISCOVERY_TTL_SECONDS: z.coerce.number().int().min(0).default(10),
});

export type MultiKueueConfig = z.output<typeof Schema>;

export const readMultiKueueConfig = (env: NodeJS.ProcessEnv): MultiKueueConfig => readEnv(Schema, env);

/** The schema as declared, for the generated reference (docs/reference/environment.md). */
export { Schema as MultiKueueEnv };

import { z } from 'zod';
import { DEFAULT_PROTECTED_NAMESPACES } from '../plan/decide.js';
import { KIND_PATTERN } from '../multikueue/kinds.js';

// The functions' configuration, from the environment, validated once at start: a bad
// setting stops the process with every problem named, before any event is taken.

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');
const list = z.string().transform((s) => s.split(',').map((x) => x.trim()).filter((x) => x !== ''));
const positiveInt = z.coerce.number().int().positive();

const EnvSchema = z
  .object({
    POLICY_FILE: z.string().min(1).optional(),
    /** `namespace/name` of a ConfigMap holding the policy; re-read when it changes. */
    POLICY_CONFIGMAP: z.string().regex(/^[a-z0-9-]+\/[a-z0-9.-]+$/, 'expected namespace/name').optional(),
    POLICY_CONFIGMAP_KEY: z.string().min(1).default('policy.yaml'),
    ALLOW_UNSUPPORTED_PLUGINS: bool.default(false),
    PROTECTED_NAMESPACES: list.default([...DEFAULT_PROTECTED_NAMESPACES]),
    /** Everything through the API server's dryRun=All: validated, admitted, never persisted. */
    DRY_RUN: bool.default(false),
    RECORD_EVENTS: bool.default(true),
    KUBECONFIG: z.string().min(1).optional(),
    /** Bearer token that lets `invoke` execute; without it, invoke only plans. */
    INVOKE_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    SWEEP_PAGE_SIZE: positiveInt.max(5000).default(500),
    SWEEP_TIME_BUDGET_SECONDS: positiveInt.default(50),
    REQUEST_TIMEOUT_SECONDS: positiveInt.default(20),
    // MultiKueue (jobDeleted, orphanSweep). The origin is Kueue's `multiKueue.origin`
    // (default "multikueue"): only remote objects labelled with it are ever touched.
    MULTIKUEUE_ORIGIN: z.string().regex(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/, 'must be a label value').default('multikueue'),
    /** Where Kueue runs: MultiKueueCluster Secrets in the manager, kube-tidy's ledger in workers. */
    KUEUE_NAMESPACE: z.string().regex(/^[a-z0-9-]+$/).default('kueue-system'),
    /** Only the clusters of this MultiKueueConfig; default every MultiKueueCluster. */
    MULTIKUEUE_CONFIG: z.string().min(1).optional(),
    /** Static workers `name=/path/kubeconfig,...` instead of discovery from the manager. */
    MULTIKUEUE_WORKERS: list.pipe(z.array(z.string().regex(/^[a-z0-9.-]+=.+$/, 'expected name=/path/to/kubeconfig'))).optional(),
    MULTIKUEUE_JOB_KINDS: list.pipe(z.array(z.string().regex(KIND_PATTERN, 'expected group/version/Kind, e.g. batch/v1/Job'))).default(['batch/v1/Job']),
    MULTIKUEUE_PROPAGATION: z.enum(['Background', 'Foreground']).default('Background'),
    /** Deletions (and evictions) per worker per orphan sweep; the rest are reported as deferred. */
    MULTIKUEUE_SWEEP_LIMIT: positiveInt.default(200),
    /** How long a discovered worker list (and its clients) is reused before re-reading the manager. */
    MULTIKUEUE_DISCOVERY_TTL_SECONDS: z.coerce.number().int().min(0).default(10),
  })
  .refine((e) => !(e.POLICY_FILE && e.POLICY_CONFIGMAP), { message: 'set only one of POLICY_FILE and POLICY_CONFIGMAP', path: ['POLICY_FILE'] })
  .refine((e) => e.POLICY_FILE || e.POLICY_CONFIGMAP, { message: 'set POLICY_FILE (a policy file) or POLICY_CONFIGMAP (namespace/name)', path: ['POLICY_FILE'] });

export type RuntimeConfig = z.output<typeof EnvSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`));
  }
  return parsed.data;
}

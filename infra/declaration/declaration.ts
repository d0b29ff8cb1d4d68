// serverless.yml read and checked: the one declaration every generator and test starts from.
// The schema is strict so a typo in a key fails loudly instead of silently meaning nothing.
import { readFileSync } from 'node:fs';
import { describeIssues } from '../../shared/config/env.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DECLARATION_FILE = join(REPO_ROOT, 'serverless.yml');

const name = z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a DNS label');
const selector = z.strictObject({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z
    .array(z.strictObject({ key: z.string(), operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']), values: z.array(z.string()).optional() }))
    .optional(),
});

const rule = z.strictObject({
  apiGroups: z.array(z.string()).min(1),
  resources: z.array(z.string()).min(1),
  verbs: z.array(z.enum(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'])).min(1),
  resourceNames: z.array(z.string()).optional(),
  /**
   * Granted only in one namespace (a Role): `kueue`, where MultiKueue keeps its Secrets, or
   * `own`, kube-tidy's namespace (e.g. the evacuation ledger). Absent: cluster-wide.
   */
  namespace: z.enum(['kueue', 'own']).optional(),
});
export type Rule = z.infer<typeof rule>;

const event = z.union([
  z.strictObject({ cloudEvent: z.strictObject({ type: z.string().regex(/^dev\.knative\.apiserver\.resource\.(add|update|delete)$/), kind: z.string() }) }),
  z.strictObject({
    schedule: z.strictObject({
      cron: z.string().regex(/^(\S+\s+){4}\S+$/, 'five cron fields'),
      timezone: z.string().optional(),
      /**
       * `ping`: the tick is a PingSource CloudEvent wherever it comes from (Cloud Scheduler
       * sends one in binary mode), for a function that reads a plain POST as a pod (podTerminated).
       * Knative's PingSource always sends one.
       */
      as: z.literal('ping').optional(),
    }),
  }),
  z.strictObject({ http: z.strictObject({ method: z.literal('POST'), path: z.literal('/'), visibility: z.enum(['cluster-local', 'public']) }) }),
  // The function's own shards (docs/scale.md): it posts them to the broker, a Trigger brings
  // them back to some instance of it.
  z.strictObject({ shards: z.strictObject({ type: z.literal('dev.kube-tidy.sweep.shard.v1') }) }),
]);

const fn = z.strictObject({
  description: z.string(),
  timeout: z.number().int().min(1).max(3600),
  scaling: z.strictObject({ min: z.number().int().min(0), max: z.number().int().min(1), concurrency: z.number().int().min(1) }),
  environment: z.record(z.string(), z.string()).optional(),
  secretEnvironment: z.record(z.string(), z.strictObject({ secret: name, key: z.string() })).optional(),
  events: z.array(event).min(1),
  rbac: z.array(rule),
});
export type FunctionDecl = z.infer<typeof fn>;

export const DeclarationSchema = z.strictObject({
  service: name,
  deployment: z.strictObject({
    serverlessDeploy: z.literal(false),
    why: z.string(),
    targets: z.strictObject({ knative: z.string(), gcp: z.string() }),
  }),
  provider: z.strictObject({
    runtime: z.string().regex(/^nodejs\d+$/),
    image: z.string(),
    dockerfile: z.string(),
    entry: z.string(),
    namespace: name,
    kueueNamespace: name,
    environment: z.record(z.string(), z.string()),
    delivery: z.strictObject({
      retry: z.number().int().min(0),
      backoffPolicy: z.enum(['exponential', 'linear']),
      backoffDelay: z.string().regex(/^PT\d+(\.\d+)?S$/),
    }),
    deadLetter: z.strictObject({ image: z.string() }),
    /**
     * Who may call the functions (shared/serve/http/auth.ts): per platform, the kind of sender
     * token checked; the generator fills in each function's audience and allowed senders.
     */
    senderAuth: z.strictObject({ knative: z.enum(['kubernetes', 'none']), gcp: z.enum(['google', 'none']) }),
    sources: z.strictObject({
      apiserver: z.strictObject({
        namespaceSelector: selector.optional(),
        resources: z.array(z.strictObject({ apiVersion: z.string(), kind: z.string(), selector: selector.optional() })).min(1),
      }),
    }),
  }),
  functions: z.record(z.string().regex(/^[a-z][A-Za-z0-9]*$/, 'a functions-framework target name'), fn),
});
export type Declaration = z.infer<typeof DeclarationSchema>;

export function parseDeclaration(text: string): Declaration {
  const parsed = DeclarationSchema.safeParse(parse(text));
  if (!parsed.success) throw new Error(`serverless.yml: ${describeIssues(parsed.error.issues, '(root)').join('; ')}`);
  return parsed.data;
}

export function readDeclaration(file = DECLARATION_FILE): Declaration {
  return parseDeclaration(readFileSync(file, 'utf8'));
}

/** `podTerminated` -> `pod-terminated`: Kubernetes names are DNS labels. */
export function kebab(target: string): string {
  return target.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

export type EventDecl = FunctionDecl['events'][number];

/** Kinds whose name would make a Trigger's too long (Knative hashes an OIDC account name past 29 characters): kubectl's short name. */
const SHORT_KINDS: Readonly<Record<string, string>> = { PersistentVolumeClaim: 'pvc' };

/** The Trigger that delivers a function's `index`-th event (none for HTTP events). */
export function triggerName(target: string, e: EventDecl, index: number): string | undefined {
  if ('cloudEvent' in e) return `${kebab(target)}-${SHORT_KINDS[e.cloudEvent.kind] ?? e.cloudEvent.kind.toLowerCase()}-${e.cloudEvent.type.split('.').pop()!}`;
  if ('schedule' in e) return `${kebab(target)}-schedule-${index}`;
  if ('shards' in e) return `${kebab(target)}-shards`;
  return undefined;
}

/** Where and under which names a rendering installs (rbac.ts and render.ts both read it). */
export interface RenderOptions {
  namespace: string;
  kueueNamespace: string;
  /** Prefix of cluster-scoped names (ClusterRoles), unique per installation. */
  prefix: string;
  image: string;
}

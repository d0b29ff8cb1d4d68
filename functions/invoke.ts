import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { cleanupParts, runPass, type CleanupParts } from '../shared/cleanup/index.js';
import { describeIssues } from '../shared/config/env.js';
import { namespaceName } from '../shared/model/pod-schema.js';
import { loadPolicy, loadPolicyText } from '../shared/policy/load.js';
import { parseSelectorString } from '../shared/policy/selector-string.js';
import { PassReports } from '../shared/cleanup/reports/index.js';
import { readSenderAuthConfig } from '../shared/serve/http/auth.js';
import { objectsHandle, objectsStep, type ObjectsHandle } from '../shared/objects/index.js';
import { sumFailures } from '../shared/model/answer.js';
import { BadRequestError } from '../shared/serve/resolve.js';
import { defineTarget } from '../shared/serve/target.js';

// `invoke`: a person asks over HTTP. By default it plans: the whole pass through the API
// server's dry run, so what would be blocked by a PodDisruptionBudget shows as blocked.
// Running for real takes `"mode": "run"`, `"confirm": true` and the configured bearer token.

const RequestSchema = z.strictObject({
  mode: z.enum(['plan', 'run']).default('plan'),
  confirm: z.boolean().optional(),
  /** A DeschedulerPolicy (object, or YAML/JSON text); default: the configured policy. */
  policy: z.union([z.string().max(256 * 1024), z.record(z.string(), z.unknown())]).optional(),
  namespaces: z.array(namespaceName).max(100).optional(),
  /** Checked here as the API server would, so a bad selector is a 400, not a failed LIST. */
  labelSelector: z
    .string()
    .max(4096)
    .superRefine((s, ctx) => {
      const parsed = parseSelectorString(s);
      if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed });
    })
    .optional(),
  allowUnsupported: z.boolean().default(false),
  /**
   * `abort`: resume what a percentage abort stopped (docs/brakes.md): every stopped scope is
   * lifted and this run is not judged by the percent. Only with mode run, confirm and the token.
   */
  override: z.literal('abort').optional(),
  /** Also write the pass's results as OpenReports, one Report per namespace and profile (docs/observing.md "Audits as OpenReports"), and the object rules' per namespace and rule. */
  report: z.boolean().default(false),
});

/** Constant-time: hashing first makes both sides the same length, whatever was sent. */
function tokenMatches(sent: string, expected: string): boolean {
  const a = createHash('sha256').update(sent).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The run token: its own header, or (with sender authentication off) the bearer token. */
function runToken(headers: Record<string, string | string[] | undefined>, bearerFree: boolean): string {
  const own = headers['x-kube-tidy-invoke-token'];
  if (typeof own === 'string') return own;
  const auth = headers['authorization'];
  return bearerFree && typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : '';
}

interface InvokeParts extends CleanupParts {
  /** Sender authentication is off (SENDER_AUTH=none): the Authorization header is free to carry the run token. */
  bearerFree: boolean;
  /** Cleanup beyond pods (shared/objects): planned or run after the pods, by the same request. */
  objects: ObjectsHandle;
}

export const invoke = defineTarget({
  name: 'invoke',
  accepts: { plain: 'body', hint: 'invoke takes a JSON request body ({"mode": "plan"}), not CloudEvents' },
  needs: { policy: true, cluster: 'at-start' },
  setup: (rt): InvokeParts => ({ ...cleanupParts(rt), bearerFree: readSenderAuthConfig(rt.env).platform === 'none', objects: objectsHandle(rt) }),
  async handle(input, { config, handle: h, bearerFree, objects: oh }) {
    if (input.type !== 'body') throw new Error('unreachable: accepts only plain bodies');
    const started = h.now();
    const parsed = RequestSchema.safeParse(input.body ?? {});
    if (!parsed.success) throw new BadRequestError(400, describeIssues(parsed.error.issues, 'body').join('; '));
    const body = parsed.data;
    if (body.mode === 'run') {
      const expected = config.INVOKE_TOKEN;
      if (!expected) throw new BadRequestError(403, 'running is disabled: no INVOKE_TOKEN is configured, so invoke only plans');
      const sent = runToken(input.headers, bearerFree);
      if (!tokenMatches(sent, expected)) throw new BadRequestError(401, 'a valid bearer token is required to run');
      if (body.confirm !== true) throw new BadRequestError(400, 'running deletes and evicts pods: repeat the request with "confirm": true');
    } else if (body.override)
      throw new BadRequestError(400, 'body.override: resuming what an abort stopped is a run: set "mode": "run" and "confirm": true, with the token');
    // A report replaces what a profile reported in each namespace: a label-selected pass sees only some pods, and would replace the whole with that part.
    if (body.report && body.labelSelector !== undefined)
      throw new BadRequestError(400, 'body.report: a report covers every pod of its namespaces; drop "labelSelector" (or "report")');
    const opts = { allowUnsupported: body.allowUnsupported };
    const policy =
      body.policy === undefined ? h.policy() : (typeof body.policy === 'string' ? loadPolicyText(body.policy, opts) : loadPolicy(body.policy, opts)).policy;
    const reports = body.report
      ? new PassReports({
          policy,
          mode: body.mode,
          protectedNamespaces: h.settings.protectedNamespaces,
          ...(body.namespaces ? { namespaces: body.namespaces } : {}),
        })
      : undefined;
    const summary = await runPass(h, {
      ...(reports ? { observers: [reports] } : {}),
      policy,
      origin: 'invoke',
      namespaces: body.namespaces,
      labelSelector: body.labelSelector,
      dryRun: body.mode === 'plan',
      budgetMs: h.settings.budgetMs,
      eventsPerPass: h.settings.eventsPerPass,
      overrideAbort: body.override === 'abort',
    });
    if (body.override) h.log.warn({ resumed: summary.brakes?.resumed ?? 0, pass: summary.pass }, 'invoke: percentage abort overridden by a person');
    const { results, keptPods, failures, ...counts } = summary;
    // A report asked for and not written is work left undone, by the same partial-failure rule.
    const written = reports ? await reports.write(h.writer().reportsClient, summary, h.now()) : undefined;
    // Then cleanup beyond pods: the same policy, namespaces and mode (a label selector is the pods' alone).
    const objects = await objectsStep(oh, {
      origin: 'invoke',
      dryRun: body.mode === 'plan' || oh.settings.dryRun,
      rules: policy.objects ?? [],
      reports: body.report,
      until: started + h.settings.budgetMs,
      ...(body.namespaces ? { namespaces: body.namespaces } : {}),
    });
    const all = sumFailures(failures, written?.failures, objects.failures);
    return {
      outcome: body.mode === 'plan' ? 'planned' : 'ran',
      dryRun: summary.dryRun,
      summary: counts,
      failures: all,
      results,
      kept: keptPods,
      ...(written ? { reports: written } : {}),
      ...(objects.answer ? { objects: { ...objects.answer, ...(objects.reports ? { reports: objects.reports } : {}) } } : {}),
    };
  },
});

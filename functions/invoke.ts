import { createHash, timingSafeEqual } from 'node:crypto';
import type { HttpFunction } from '@google-cloud/functions-framework';
import { z } from 'zod';
import { loadPolicy, loadPolicyText } from '../shared/policy/load.js';
import { runPass } from '../shared/runtime/pass.js';
import { BadRequestError, respond } from '../shared/runtime/respond.js';
import type { Runtime } from '../shared/runtime/runtime.js';

// `invoke`: a person asks over HTTP. By default it plans: the whole pass through the API
// server's dry run, so what would be blocked by a PodDisruptionBudget shows as blocked.
// Running for real takes `"mode": "run"`, `"confirm": true` and the configured bearer token.

const RequestSchema = z.strictObject({
  mode: z.enum(['plan', 'run']).default('plan'),
  confirm: z.boolean().optional(),
  /** A DeschedulerPolicy (object, or YAML/JSON text); default: the configured policy. */
  policy: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  namespaces: z.array(z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'not a namespace name')).max(100).optional(),
  labelSelector: z.string().max(1024).optional(),
  allowUnsupported: z.boolean().default(false),
});

/** Constant-time: hashing first makes both sides the same length, whatever was sent. */
function tokenMatches(sent: string, expected: string): boolean {
  const a = createHash('sha256').update(sent).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export function invoke(rt: Runtime): HttpFunction {
  return (req, res) =>
    respond(req, res, rt.log, async () => {
      const parsed = RequestSchema.safeParse(req.body ?? {});
      if (!parsed.success) throw new BadRequestError(400, parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
      const body = parsed.data;
      if (body.mode === 'run') {
        const expected = rt.config.INVOKE_TOKEN;
        if (!expected) throw new BadRequestError(403, 'running is disabled: no INVOKE_TOKEN is configured, so invoke only plans');
        const auth = req.header('authorization') ?? '';
        const sent = auth.startsWith('Bearer ') ? auth.slice(7) : '';
        if (!tokenMatches(sent, expected)) throw new BadRequestError(401, 'a valid bearer token is required to run');
        if (body.confirm !== true) throw new BadRequestError(400, 'running deletes and evicts pods: repeat the request with "confirm": true');
      }
      const policy =
        body.policy === undefined
          ? rt.policy.current().policy
          : (typeof body.policy === 'string' ? loadPolicyText(body.policy, { allowUnsupported: body.allowUnsupported }) : loadPolicy(body.policy, { allowUnsupported: body.allowUnsupported })).policy;
      const summary = await runPass(rt, {
        policy,
        namespaces: body.namespaces,
        labelSelector: body.labelSelector,
        dryRun: body.mode === 'plan' || rt.config.DRY_RUN,
        budgetMs: rt.config.SWEEP_TIME_BUDGET_SECONDS * 1000,
      });
      const { results, keptPods, ...counts } = summary;
      return { body: { outcome: body.mode === 'plan' ? 'planned' : 'ran', summary: counts, results, kept: keptPods } };
    });
}

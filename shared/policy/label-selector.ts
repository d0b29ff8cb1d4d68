import { z } from 'zod';
import type { LabelSelector } from '../model/objects.js';

// metav1.LabelSelector: the same semantics as the API server (matchLabels and every
// expression ANDed; an empty selector matches everything).

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

/** A label selector (matchLabels, matchExpressions), as the API server reads one. */
export const LabelSelectorSchema = z.strictObject({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z
    .array(
      z
        .strictObject({
          key: z.string().min(1),
          operator: z.enum(OPERATORS),
          values: z.array(z.string()).optional(),
        })
        .superRefine((req, ctx) => {
          const n = req.values?.length ?? 0;
          if ((req.operator === 'In' || req.operator === 'NotIn') && n === 0) {
            ctx.addIssue({ code: 'custom', path: ['values'], message: `must be non-empty for operator ${req.operator}` });
          }
          if ((req.operator === 'Exists' || req.operator === 'DoesNotExist') && n > 0) {
            ctx.addIssue({ code: 'custom', path: ['values'], message: `must be empty for operator ${req.operator}` });
          }
        }),
    )
    .optional(),
});

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

const matchAll: LabelMatcher = () => true;

/** Compiles once so the hot path does no parsing. */
export function compileLabelSelector(selector: LabelSelector | undefined): LabelMatcher {
  if (!selector) return matchAll;
  const checks: LabelMatcher[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    checks.push((labels) => labels?.[key] === value);
  }
  for (const req of selector.matchExpressions ?? []) {
    const values = new Set(req.values ?? []);
    const key = req.key;
    switch (req.operator) {
      case 'In':
        checks.push((labels) => labels?.[key] !== undefined && values.has(labels[key]));
        break;
      case 'NotIn':
        checks.push((labels) => labels?.[key] === undefined || !values.has(labels[key]));
        break;
      case 'Exists':
        checks.push((labels) => labels?.[key] !== undefined);
        break;
      case 'DoesNotExist':
        checks.push((labels) => labels?.[key] === undefined);
        break;
      default:
        // Unknown operators never validate; matching nothing is the safe reading.
        checks.push(() => false);
    }
  }
  if (checks.length === 0) return matchAll;
  return (labels) => {
    for (const check of checks) if (!check(labels)) return false;
    return true;
  };
}

export function isEmptySelector(selector: LabelSelector | undefined): boolean {
  return !selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0);
}

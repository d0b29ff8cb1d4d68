import type { z } from 'zod';

/** One configuration problem: where it is and what was expected there. */
export interface PolicyIssue {
  path: string;
  message: string;
}

/**
 * Every problem in a policy at once (the descheduler aggregates its validation errors the
 * same way), so a user fixes a file in one pass instead of one error per run.
 */
/** One indented `path: message` line per issue, as every policy and input error prints them. */
export const issueLines = (issues: readonly PolicyIssue[]): string => issues.map((i) => `  ${i.path || '(root)'}: ${i.message}`).join('\n');

export class PolicyError extends Error {
  readonly issues: PolicyIssue[];
  constructor(issues: PolicyIssue[]) {
    super(`invalid policy:\n${issueLines(issues)}`);
    this.name = 'PolicyError';
    this.issues = issues;
  }
}

/** `profiles[0].pluginConfig[1].args.states[2]` from zod's path segments. */
export function formatPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? String(s) : `.${String(s)}`;
  }
  return out;
}

export function joinPath(prefix: string, rest: string): string {
  if (prefix === '') return rest;
  if (rest === '') return prefix;
  return rest.startsWith('[') ? `${prefix}${rest}` : `${prefix}.${rest}`;
}

/**
 * zod issues, re-rooted under `prefix`, with messages that name what was expected and,
 * given the validated input, what was found.
 */
export function issuesFromZod(error: z.ZodError, prefix = '', input?: unknown): PolicyIssue[] {
  return error.issues.map((issue) => ({
    path: joinPath(prefix, formatPath(issue.path)),
    message: describeZodIssue(issue, valueAt(input, issue.path)),
  }));
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function describeZodIssue(issue: z.core.$ZodIssue, found: unknown): string {
  const got = found === undefined ? '' : `got ${JSON.stringify(found)}, `;
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'invalid_value':
      return `${got}expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_type':
      return found === undefined ? `required: expected ${issue.expected}` : `${got}expected ${issue.expected}`;
    default:
      return issue.message;
  }
}

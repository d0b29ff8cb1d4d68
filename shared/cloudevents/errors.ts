import type { z } from 'zod';

/**
 * The status tells the adapter what to answer; every status here is a 4xx because retrying
 * the same bytes can never succeed (design.md: 4xx = the input is wrong, do not retry).
 * - 400: malformed (bad JSON, missing CloudEvent attributes, data failing its schema, bad base64)
 * - 415: a media type we do not read (non-JSON data, batch or non-JSON structured mode)
 * - 422: a well-formed CloudEvent whose type no decoder here handles
 */
export type BadEventStatus = 400 | 415 | 422;

export class BadEventError extends Error {
  readonly status: BadEventStatus;
  /** Each individual problem; `message` joins them so a log line shows all at once. */
  readonly issues: readonly string[];

  constructor(status: BadEventStatus, summary: string, issues: readonly string[] = []) {
    super(issues.length > 0 ? `${summary}: ${issues.join('; ')}` : summary);
    this.name = 'BadEventError';
    this.status = status;
    this.issues = issues;
  }
}

/** `data.metadata.ownerReferences[0].uid` from a root and zod's path segments. */
export function formatPath(root: string, segments: readonly PropertyKey[]): string {
  let out = root;
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? String(s) : `.${String(s)}`;
  }
  return out === '' ? '(root)' : out;
}

// zod prefixes messages with a category ("Invalid input: expected string, received number");
// the path already says where, so keep only the part that says what was expected.
function describe(issue: z.core.$ZodIssue): string {
  return issue.message.replace(/^Invalid (input|option): /, '');
}

/**
 * Parses with `schema` or throws one 400 listing every issue, each rooted at `root` so the
 * sender can find the field in what it sent (`data.metadata.uid: expected string, ...`).
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, root: string, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => `${formatPath(root, i.path)}: ${describe(i)}`);
  throw new BadEventError(400, `invalid ${what}`, issues);
}

// Reading configuration from the environment, the same way for the process and for every
// family: zod schemas, every problem reported at once with the variable's name.
import { z } from 'zod';

export const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');
export const list = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== ''),
);
export const positiveInt = z.coerce.number().int().positive();
/** Seconds in the environment, milliseconds in the code. */
export const secondsAsMs = (def: number) => positiveInt.default(def).transform((s) => s * 1000);

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** `path: message` for each zod issue; `empty` names the whole input when the path is empty. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], empty: string): string[] {
  return issues.map((i) => `${i.path.map(String).join('.') || empty}: ${i.message}`);
}

/** Parses the environment with `schema`, or throws a ConfigError naming every problem. */
export function readEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  // A variable that is not set says so, rather than zod's "expected string, received undefined".
  const parsed = schema.safeParse(env, { error: (issue) => (issue.input === undefined ? 'not set (required)' : undefined) });
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error.issues, 'environment'));
  return parsed.data;
}

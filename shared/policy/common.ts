import { z } from 'zod';

// Argument pieces shared by several strategies, defined once.

/** `namespaces: {include|exclude}`; the descheduler allows only one of the two. */
export const NamespacesSchema = z
  .strictObject({
    include: z.array(z.string().min(1)).optional(),
    exclude: z.array(z.string().min(1)).optional(),
  })
  .refine((ns) => !(ns.include?.length && ns.exclude?.length), {
    message: 'only one of include/exclude may be set',
  });

export type Namespaces = z.output<typeof NamespacesSchema>;

/** Whole seconds, as the descheduler's uint fields. */
export const SecondsSchema = z.number().int().nonnegative();

export interface ExitCodeRange {
  from: number;
  to: number;
}

const RANGE = /^\s*(\d+)\s*-\s*(\d+)\s*$/;

/**
 * An exit code: a number as in the descheduler, or (kube-tidy's extension) an inclusive
 * range "128-255" for "killed by a signal". Kept as written so a normalized policy still
 * reads like the user's; `toRanges` compiles it.
 */
export const ExitCodeSchema = z.union([
  // int32 as in the descheduler: Windows and some runtimes report codes above 255.
  z.number().int().min(-2147483648).max(2147483647),
  z.string().superRefine((s, ctx) => {
    const m = RANGE.exec(s);
    if (!m) {
      ctx.addIssue({ code: 'custom', message: `"${s}" is not an exit code: expected a number or a range "FROM-TO" such as "128-255"` });
      return;
    }
    const from = Number(m[1]);
    const to = Number(m[2]);
    if (from > to || to > 2147483647) {
      ctx.addIssue({ code: 'custom', message: `"${s}" is not a range with FROM <= TO` });
    }
  }),
]);

export type ExitCode = z.output<typeof ExitCodeSchema>;

export function toRanges(codes: readonly ExitCode[]): ExitCodeRange[] {
  return codes.map((c) => {
    if (typeof c === 'number') return { from: c, to: c };
    const m = RANGE.exec(c);
    return { from: Number(m?.[1]), to: Number(m?.[2]) };
  });
}

export function formatRanges(ranges: readonly ExitCodeRange[]): string {
  return ranges.map((r) => (r.from === r.to ? String(r.from) : `${r.from}-${r.to}`)).join(', ');
}

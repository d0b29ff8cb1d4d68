import { z } from 'zod';
import type { LabelSelector, LabelSelectorRequirement } from '../model/objects.js';

// The string form of a label selector ("role=worker,zone in (a,b),!spot"), as the
// descheduler's DefaultEvictor `nodeSelector` takes it. Parsed into the structured form so
// one matcher serves both.

export function parseSelectorString(input: string): LabelSelector | string {
  const reqs: LabelSelectorRequirement[] = [];
  const labels: Record<string, string> = {};
  for (const raw of splitTopLevel(input)) {
    const part = raw.trim();
    if (part === '') continue;
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(part))) {
      const values = m[3]!
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
      if (values.length === 0) return `"${part}": a set needs at least one value`;
      reqs.push({ key: m[1]!, operator: m[2] === 'in' ? 'In' : 'NotIn', values });
    } else if ((m = /^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$/.exec(part))) {
      if (m[2] === '!=') reqs.push({ key: m[1]!, operator: 'NotIn', values: [m[3]!] });
      else labels[m[1]!] = m[3]!;
    } else if ((m = /^!\s*([\w./-]+)$/.exec(part))) {
      reqs.push({ key: m[1]!, operator: 'DoesNotExist' });
    } else if ((m = /^([\w./-]+)$/.exec(part))) {
      reqs.push({ key: m[1]!, operator: 'Exists' });
    } else {
      return `"${part}" is not a selector requirement (key=value, key!=value, key in (a,b), key notin (a,b), key, !key)`;
    }
  }
  return { matchLabels: labels, matchExpressions: reqs };
}

/** Splits on commas that are not inside a parenthesised value set. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

/** An optional selector string in a policy (its nodeSelector, DefaultEvictor's nodeSelector), refused with the parser's reason. */
export const SelectorStringSchema = z
  .string()
  .optional()
  .superRefine((s, ctx) => {
    const parsed = s === undefined ? undefined : parseSelectorString(s);
    if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed });
  });

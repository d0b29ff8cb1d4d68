import { z } from 'zod';
import { parseDocument } from 'yaml';
import { dns1123LabelProblem } from '../../model/names.js';
import type { Node, Pod } from '../../model/objects.js';
import { issueLines, issuesFromZod, PolicyError, type PolicyIssue } from '../../policy/errors.js';
import { FileTooLargeError, readFileCapped } from '../../config/bounded-read.js';
import { loadPolicyText, MAX_POLICY_BYTES } from '../../policy/load.js';

// Reading the files a person hands the CLI: `kubectl get ... -o json` output (a v1 List or
// one object), YAML accepted too. Only what the core relies on is required.

export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly issues: PolicyIssue[],
  ) {
    super(`${file}:\n${issueLines(issues)}`);
    this.name = 'InputError';
  }
}

/**
 * The most a `kubectl get -o json` dump may be: about the longest string V8 makes (2^29 - 24
 * characters), which a larger file could not have been read into anyway.
 */
export const MAX_DUMP_BYTES = 500 * (1 << 20);

/** A file's text, read no further than `maxBytes` (a /dev/zero or a FIFO never ends): an InputError past it. */
export function readText(file: string, maxBytes = MAX_DUMP_BYTES): string {
  try {
    return readFileCapped(file, maxBytes);
  } catch (e) {
    if (e instanceof FileTooLargeError) throw new InputError(file, [{ path: '', message: e.message }]);
    throw new InputError(file, [{ path: '', message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }]);
  }
}

export function parseStructured(file: string, text: string): unknown {
  // `kubectl get pods -A -o json` of a large cluster is tens of MB: JSON.parse reads 100,000
  // pods in under a second, the YAML parser's document tree takes minutes and gigabytes.
  // Anything JSON.parse refuses (YAML, JSON with an error) goes to the YAML parser, which says where.
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // below
    }
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new InputError(file, [{ path: '', message: `not valid JSON or YAML: ${doc.errors[0]!.message.split('\n')[0]}` }]);
  }
  return doc.toJS();
}

const Meta = z.looseObject({
  name: z.string().min(1),
  namespace: z.string().min(1),
  uid: z.string().min(1),
  creationTimestamp: z.string().optional(),
});

const PodSchema = z.looseObject({ kind: z.literal('Pod').optional(), metadata: Meta });
const NodeSchema = z.looseObject({
  kind: z.literal('Node').optional(),
  metadata: z.looseObject({ name: z.string().min(1) }),
});

function readObjects<T>(file: string, schema: z.ZodType, kind: string): T[] {
  const raw = parseStructured(file, readText(file)) as { kind?: string; items?: unknown } | null;
  if (raw === null || typeof raw !== 'object') {
    throw new InputError(file, [{ path: '', message: `expected a ${kind} or a List of them` }]);
  }
  const isList = Array.isArray(raw.items) || raw.kind === 'List' || raw.kind === `${kind}List`;
  const items: unknown[] = isList ? (Array.isArray(raw.items) ? raw.items : []) : [raw];
  const issues: PolicyIssue[] = [];
  items.forEach((item, i) => {
    const r = schema.safeParse(item);
    if (!r.success) issues.push(...issuesFromZod(r.error, isList ? `items[${i}]` : ''));
  });
  if (issues.length > 0) throw new InputError(file, issues);
  return items as T[];
}

export const readPods = (file: string): Pod[] => readObjects<Pod>(file, PodSchema, 'Pod');
export const readNodes = (file: string): Node[] => readObjects<Node>(file, NodeSchema, 'Node');

/** A policy file, its problems reported under the file's name (exit 2 with every field path). */
export function loadPolicyFile(file: string, allowUnsupported: boolean) {
  return loadPolicyFrom(file, readText(file, MAX_POLICY_BYTES), allowUnsupported);
}

/** Policy text from anywhere (a file, a ConfigMap), its problems reported under `where`. */
export function loadPolicyFrom(where: string, text: string, allowUnsupported: boolean) {
  try {
    return loadPolicyText(text, { allowUnsupported });
  } catch (e) {
    if (e instanceof PolicyError) throw new InputError(where, e.issues);
    throw e;
  }
}

/**
 * The namespaces never touched, from `--protected-namespaces LIST`: LIST ADDS to the defaults
 * (kube-system), so naming one namespace never drops kube-system's protection; `-NAME` takes
 * NAME out, a default included (`--protected-namespaces=-kube-system`: with "=", because the
 * value starts with a dash). Entries apply in order. `removed` names the defaults taken out,
 * for a warning.
 */
export function protectedNamespacesOf(
  value: string | undefined,
  defaults: readonly string[],
): { namespaces: string[]; removed: string[] } | { problem: string } {
  const set = new Set(defaults);
  for (const entry of (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const remove = entry.startsWith('-');
    const name = remove ? entry.slice(1) : entry;
    const problem = dns1123LabelProblem(name);
    if (problem)
      return { problem: `--protected-namespaces: "${entry}": ${name === '' ? 'a namespace after "-" is missing' : `not a namespace name: ${problem}`}` };
    if (remove) set.delete(name);
    else set.add(name);
  }
  return { namespaces: [...set], removed: defaults.filter((d) => !set.has(d)) };
}

/** The warning for defaults taken out of the protected namespaces, or undefined. */
export const unprotectedWarning = (removed: readonly string[]): string | undefined =>
  removed.length === 0
    ? undefined
    : `warning: ${removed.join(', ')} ${removed.length === 1 ? 'is' : 'are'} NOT protected (taken out by --protected-namespaces): its pods may be selected\n`;

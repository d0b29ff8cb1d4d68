// The object pass of `kube-tidy plan --kubeconfig` and `kube-tidy run`, after the pod pass:
// cleanup beyond pods (shared/objects) through the command's handle, its writer and its
// brakes (hosts/cli/handle.ts cliObjectsHandle), printed after the pods (objects-output.ts).
// --namespace and --label-selector narrow it as they narrow the pods: a person who asked for
// one namespace or one label must not see a Job of another deleted.
import type { CleanupHandle } from '../../cleanup/index.js';
import { sumFailures } from '../../model/answer.js';
import { ObjectReports, runObjectsPass, type ObjectsPassSummary } from '../../objects/index.js';
import type { ObjectsReader } from '../../objects/io/read.js';
import type { ObjectRule } from '../../policy/objects-schema.js';
import type { TtlRule } from '../../policy/ttl-schema.js';
import { parseSelectorString } from '../../policy/selector-string.js';
import { cliObjectsHandle } from './handle.js';
import { printObjects } from './objects-output.js';
import type { Format } from './output.js';

type Out = { out: (s: string) => void; err: (s: string) => void };
type Selector = NonNullable<ObjectRule['labelSelector']>;
type Requirement = NonNullable<Selector['matchExpressions']>[number];

/**
 * Each rule's selector AND the command's: an object a rule selects under the narrowed rule is
 * one it selects under its own, and every rule is narrowed alike, so the first rule an object
 * matches stays the same. The owner rules (keepLast, a CronJob's history) then count only
 * within the narrowed set, which keeps as many or more, never fewer.
 */
export function narrowRules<R extends { labelSelector?: Selector }>(rules: readonly R[], selector: string | undefined): R[] {
  if (selector === undefined) return [...rules];
  const parsed = parseSelectorString(selector);
  // live.ts checked the selector before anything ran.
  if (typeof parsed === 'string') throw new Error(`--label-selector: ${parsed}`);
  const extra: Requirement[] = [
    ...Object.entries(parsed.matchLabels ?? {}).map(([key, value]): Requirement => ({ key, operator: 'In', values: [value] })),
    // The string form parses only to these four operators.
    ...((parsed.matchExpressions ?? []) as Requirement[]),
  ];
  return rules.map((r) => {
    const own: Selector = r.labelSelector ?? {};
    return { ...r, labelSelector: { ...own, matchExpressions: [...(own.matchExpressions ?? []), ...extra] } };
  });
}

export interface LiveObjects {
  handle: CleanupHandle;
  reader: ObjectsReader;
  rules: readonly ObjectRule[];
  /** The policy's ttl rules (TTL on any kind), narrowed and run in the same pass. */
  ttlRules?: readonly TtlRule[];
  namespace: string | undefined;
  labelSelector: string | undefined;
  dryRun: boolean;
  format: Format;
  /** --report: the rules' OpenReports written after the pass (objects/reports), as the sweep writes them. */
  report?: boolean;
  protectedNamespaces?: readonly string[];
  /** The deployed kube-tidy's namespace, and how the command knows it (live.ts ownNamespaceOf): a ttl rule never deletes it nor anything in it. */
  own?: { namespace: string; from: string };
}

/** Runs and prints the object pass; none when the policy has no object rules. */
export async function liveObjects(o: LiveObjects, io: Out): Promise<ObjectsPassSummary | undefined> {
  if (o.rules.length === 0 && !o.ttlRules?.length) return undefined;
  const rules = narrowRules(o.rules, o.labelSelector);
  const ttlRules = narrowRules(o.ttlRules ?? [], o.labelSelector);
  const summary = await runObjectsPass(cliObjectsHandle(o.handle, o.reader, o.own), {
    origin: 'cli',
    dryRun: o.dryRun,
    rules,
    ttlRules,
    ...(o.namespace ? { namespaces: [o.namespace] } : {}),
  });
  printObjects(summary, [...rules, ...ttlRules], o.format, o.handle.now(), io);
  if (!o.report) return summary;
  const reported = await new ObjectReports({
    rules: [...rules, ...ttlRules],
    origin: 'cli',
    protectedNamespaces: o.protectedNamespaces ?? [],
    ...(o.namespace ? { namespaces: [o.namespace] } : {}),
  }).write(o.reader.custom, summary, o.handle.now());
  io.err(`object reports: ${reported.written} written, ${reported.deleted} deleted\n`);
  for (const e of reported.errors ?? []) io.err(`kube-tidy: object report: ${e}\n`);
  // A report not written is work left undone: the exit code says so, as for the pods' reports.
  return { ...summary, failures: sumFailures(summary.failures, reported.failures) };
}

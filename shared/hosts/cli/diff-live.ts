// `kube-tidy plan --kubeconfig FILE --policy new.yaml --against current`: both policies decided
// over ONE paged LIST of the cluster, page by page as the pass decides (selection/across-pages.ts:
// each policy's order and limits over every page), then compared (selection/diff.ts). Nothing is
// written, not even as a dry run: a diff is about what each policy selects, which the pure
// core says from the listing; the API server's answer to each write is the plan's business.
// The policies' kubeTidy.objects rules are compared after the pods (objects/diff.ts).
// Memory: one page of pods, each policy's decisions, and of the pods a policy selected but
// kept only those the other policy decides (the diff shows why they were kept).
import { fetchContext, fetchJobOwners } from '../../cleanup/io/context.js';
import { listPods } from '../../kube/list.js';
import { createLogger } from '../../log.js';
import type { KubeClients } from '../../kube/clients.js';
import { AcrossPages } from '../../selection/across-pages.js';
import { decide } from '../../selection/decide.js';
import type { Kept } from '../../selection/decision.js';
import { diffPlans, type DiffSide, type NewSelectionGate } from '../../selection/diff.js';
import { phaseFieldSelector } from '../../selection/field-selector.js';
import { snapshotNeeds, type SnapshotNeeds } from '../../selection/needs.js';
import type { Owner } from '../../selection/retention.js';
import { indexSnapshot } from '../../selection/snapshot.js';
import type { Policy } from '../../policy/policy.js';
import { objectsDiff, type ObjectsDiffOptions } from '../../objects/diff.js';
import { narrowRules } from './live-objects.js';
import { printDiff } from './diff-output.js';
import { MetricsRecorder } from '../../metrics/recorder.js';
import { Notifier } from '../../notify/notifier.js';
import { cliHandle } from './handle.js';
import { DEFAULT_LEDGER_NAMESPACE } from './ledger.js';
import type { Format } from './output.js';

export interface LiveDiff {
  clients: KubeClients;
  /** The proposed policy (after). */
  policy: Policy;
  /** The policy in force (before), and how the user named it. */
  against: { policy: Policy; name: string };
  namespace: string | undefined;
  labelSelector: string | undefined;
  chunkSize: number;
  protectedNamespaces: readonly string[];
  /** The deployed kube-tidy's namespace (live.ts ownNamespaceOf), kept from ttl rules on both sides as run keeps it. */
  own?: { namespace: string; from: string };
  gate: NewSelectionGate | undefined;
  format: Format;
  /** For the context reads' handle; --timeout itself is the caller's (live.ts). */
  budgetMs: number;
  /** After each page: how far the listing got, for the caller's answer at --timeout. */
  onPage?: (pages: number) => void;
}

/** `notifier`: the program's CloudEvents out (main.ts); none: off. `metrics`: the program's recorder; none: not counted. */
type Out = { out: (s: string) => void; err: (s: string) => void; notifier?: Notifier; metrics?: MetricsRecorder };

export async function diffPass(o: LiveDiff, io: Out): Promise<number> {
  const started = Date.now();
  const policies = [o.against.policy, o.policy] as const;
  const log = createLogger({ destination: { write: io.err }, level: 'warn' });
  const h = cliHandle({
    clients: o.clients,
    policy: o.policy,
    dryRun: true,
    chunkSize: o.chunkSize,
    protectedNamespaces: o.protectedNamespaces,
    // A comparison applies no brakes (diff-offline.ts): no ledger is charged or read.
    ledgerNamespace: DEFAULT_LEDGER_NAMESPACE,
    budgetMs: o.budgetMs,
    log,
    notifier: io.notifier ?? Notifier.off(),
    metrics: io.metrics ?? MetricsRecorder.off(),
  });
  const context = await fetchContext(h, eitherNeeds(snapshotNeeds(policies[0]), snapshotNeeds(policies[1])));
  const jobs = policies.some((p) => p.retention?.length) ? await jobOwners(h, o.namespace) : undefined;
  const sides = policies.map((p) => ({ pass: new AcrossPages(p, jobs), kept: [] as Kept[] }));
  // Only what both policies could select may be left out of the LIST; a percentage gate counts every pod.
  const [fsBefore, fsAfter] = policies.map(phaseFieldSelector);
  const fieldSelector = o.gate && 'percent' in o.gate ? undefined : fsBefore === fsAfter ? fsAfter : undefined;
  const index = context.snapshot.contextPods ? indexSnapshot({ ...context.snapshot, pods: [] }) : undefined;
  let pages = 0;
  let podsSeen = 0;
  let lastProgress = 0;
  for await (const page of listPods(o.clients.core, { namespace: o.namespace, labelSelector: o.labelSelector, fieldSelector, limit: o.chunkSize })) {
    pages++;
    podsSeen += page.items.length;
    // One instant for both policies: an age threshold never differs because of when each was decided.
    const now = Date.now();
    const plans = sides.map((s, i) =>
      decide(policies[i]!, { ...context.snapshot, pods: page.items }, now, {
        ...s.pass.options,
        protectedNamespaces: o.protectedNamespaces,
        ...(index ? { index } : {}),
      }),
    );
    sides.forEach((s, i) => {
      s.pass.add(plans[i]!, page.items);
      const other = new Set(plans[1 - i]!.decisions.map((d) => d.uid));
      for (const k of plans[i]!.kept) if (other.has(k.uid)) s.kept.push(k);
    });
    o.onPage?.(pages);
    if (pages >= 2 && Date.now() - lastProgress >= 1000) {
      lastProgress = Date.now();
      io.err(`listing: ${podsSeen} pods in ${pages} pages${page.remainingItemCount === undefined ? '' : `, about ${page.remainingItemCount} to go`}\n`);
    }
  }
  const [before, after] = sides.map((s): DiffSide => {
    const finished = s.pass.finish();
    // What the limits (or retention) held back first: of a pod's reasons, the one that decided.
    return { decisions: finished.decisions, kept: [...finished.kept, ...s.kept] };
  }) as [DiffSide, DiffSide];
  const objects = await objectsDiff(objectsDiffOf(o));
  const seconds = ((Date.now() - started) / 1000).toFixed(2);
  return printDiff(
    {
      diff: diffPlans(before, after),
      podsSeen,
      seenWhere: `listed in ${pages} pages${fieldSelector ? ` (${fieldSelector})` : ''}, ${seconds} s`,
      against: o.against.name,
      format: o.format,
      ...(o.gate ? { gate: o.gate } : {}),
      ...(objects ? { objects } : {}),
    },
    io,
  );
}

/** Both sides' object and ttl rules, narrowed by --label-selector as a plan's are (live-objects.ts), read at one instant. */
function objectsDiffOf(o: LiveDiff): ObjectsDiffOptions {
  return {
    reader: o.clients,
    before: narrowRules(o.against.policy.objects ?? [], o.labelSelector),
    after: narrowRules(o.policy.objects ?? [], o.labelSelector),
    ttlBefore: narrowRules(o.against.policy.ttl ?? [], o.labelSelector),
    ttlAfter: narrowRules(o.policy.ttl ?? [], o.labelSelector),
    namespace: o.namespace,
    protectedNamespaces: o.protectedNamespaces,
    ...(o.own ? { own: o.own } : {}),
    now: Date.now(),
  };
}

function eitherNeeds(a: SnapshotNeeds, b: SnapshotNeeds): SnapshotNeeds {
  return Object.fromEntries(Object.keys(a).map((k) => [k, a[k as keyof SnapshotNeeds] || b[k as keyof SnapshotNeeds]])) as unknown as SnapshotNeeds;
}

/** The CronJob of each Job, for kubeTidy.retention (as the pass reads it). */
async function jobOwners(h: Parameters<typeof fetchJobOwners>[0], namespace: string | undefined): Promise<Map<string, Owner>> {
  return (await fetchJobOwners(h, namespace)).jobs;
}

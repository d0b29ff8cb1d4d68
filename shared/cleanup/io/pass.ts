// One full pass of the policy over the cluster: what `sweep` runs on a schedule and `invoke`
// runs on request, as named stages (stages/):
//   read (the pods, a page at a time) -> decide (each page as it comes) -> order (each
//   strategy's order and the limits over every page, as the descheduler's: selection/across-pages.ts)
//   -> admit (the brakes: pass-brakes.ts) -> act (through the one writer, every way it ends a result).
// How act is fed is its schedule (stages/schedules.ts): the plan in the policy's order once every
// page is read; early writes and a carried plan as they come; a fan-out's tail posted as shards.
// What watches a pass subscribes to it (observers/): the answer's lists, the due list's pods due
// soon, Kubernetes Events, CloudEvents, the meter, the caller's own (the CLI's progress,
// OpenReports); each owns its summary fields. Memory holds one page of pods plus the decisions
// (plus the context a policy asks for). A time budget stops it cleanly, while reading or acting.
import type { RemovalTarget } from '../../kube/evict-only.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Decision, Kept } from '../../selection/decision.js';
import { earlyAhead } from '../../selection/early.js';
import { phaseFieldSelector } from '../../selection/field-selector.js';
import { snapshotNeeds } from '../../selection/needs.js';
import type { Policy } from '../../policy/policy.js';
import { hasBrakes } from '../../brakes/io/brakes.js';
import { tallied, type RequestTally } from '../../kube/request-tally.js';
import type { Fed } from '../../pool/as-they-come.js';
import type { CleanupHandle } from '../handle.js';
import type { ActResult } from './act.js';
import type { Snapshot } from '../../selection/snapshot.js';
import { decidedAgain, type OneWay } from './one-pod.js';
import type { Carry, CarriedWrite } from './carry.js';
import { AnswerLists } from './observers/answer-lists.js';
import { cloudEventsOf } from './observers/cloud-events.js';
import { DueSoon } from './observers/due-soon.js';
import { kubeEventsOf } from './observers/kube-events.js';
import { meterOf } from './observers/meter.js';
import { Observers, type PageProgress, type PassObserver } from './observers/observer.js';
import { passBrakesOf, type PassBrakes } from './pass-brakes.js';
import type { PassSummary } from './pass-summary.js';
import type { FanOut } from './shards.js';
import { ActStage } from './stages/act.js';
import { DecideStage } from './stages/decide.js';
import { OrderStage, type Ordered } from './stages/order.js';
import { ReadStage, readContext, type ReadSummary } from './stages/read.js';
import { asTheyComeWrites, carryOn, fanOutTail, inPolicyOrder, scheduleOf, type Schedule } from './stages/schedules.js';

export type { PassSummary } from './pass-summary.js';
export type { PassObserver } from './observers/observer.js';
export { MAX_DUE_SOON } from './observers/due-soon.js';

export interface PassOptions {
  policy: Policy;
  namespaces?: string[];
  labelSelector?: string;
  /** Through the API server's dryRun=All: admitted (PDBs checked) but nothing persisted. DRY_RUN always applies. */
  dryRun: boolean;
  budgetMs: number;
  /** How many per-pod results the answer lists (the counts are always complete). */
  maxResults?: number;
  /** Removals with an Event each; the rest are summed up per namespace (event-budget.ts). Also the decisions sent as a CloudEvent each (the rest in batches: notify/pods.ts). */
  eventsPerPass?: number;
  /** Who runs the pass, for the CloudEvents it sends (docs/observing.md "Decisions as CloudEvents"); default `cli`. */
  origin?: 'sweep' | 'invoke' | 'cli';
  /** Hand what is beyond the first shard to other instances (sweep only). */
  fanOut?: FanOut;
  /** After each page is read and decided (the CLI's progress on long lists). */
  onPage?: (progress: PageProgress) => void;
  /** Each result in the policy's order, as soon as it and those before it are done (the CLI streams them rather than holding them), with the decision it carried out. */
  onResult?: (result: ActResult, decision: Decision) => void;
  /** Every pod a strategy selected and the pass keeps (a limit, a brake, retention), as found: not capped as `keptPods` is (OpenReports' skip results). */
  onKept?: (kept: readonly Kept[]) => void;
  /** More of what watches the pass (OpenReports' PassReports), subscribed after onPage/onResult/onKept, in this order. */
  observers?: readonly PassObserver[];
  /** invoke's explicit override of the percentage abort: lifts every stopped scope and does not judge this pass. */
  overrideAbort?: boolean;
  /**
   * Also collect the pods seen that time alone brings in within this many ms (`dueSoon`): the
   * sweep lists them in the due list (shared/cleanup/due), so each is acted on at its time rather than
   * at the next sweep. Off by default (invoke, the CLI).
   */
  dueWithinMs?: number;
  /**
   * Write deletes as their page is decided, where the order cannot change what is removed
   * (selection/early.ts): the sweep's, so writing starts with the first page instead of after the
   * last. Results then come in the order they were written, not the policy's.
   */
  early?: boolean;
  /** The sweep's plan held from one tick to the next in this instance (carry.ts): what a tick did not get to, the next writes without listing. */
  carry?: Carry;
}

export function runPass(h: CleanupHandle, opts: PassOptions): Promise<PassSummary> {
  return tallied((tally) => passOver(h, opts, tally));
}

/** A pass's parts, built from its options: the admit and act stages, its schedule, its observers. */
interface Parts {
  id: string;
  started: number;
  overdue: () => boolean;
  writer: ClusterWriter;
  brakes: PassBrakes;
  schedule: Schedule;
  /** What the last tick of this instance did not get to (carry.ts), when it goes on from it. */
  carried: ReturnType<Carry['take']>;
  /** Only a pass that reads pages sees pods due soon. */
  lists: boolean;
  observers: Observers;
  act: ActStage;
  /** What the read stage read besides the pods, once read: a pod read again after a 409 is decided against it too. */
  context?: Omit<Snapshot, 'pods'>;
}

function partsOf(h: CleanupHandle, opts: PassOptions, tally: RequestTally): Parts {
  const started = h.now();
  const writer = h.writer({ dryRun: opts.dryRun });
  const brakes = passBrakesOf(h, opts.dryRun, opts.overrideAbort === true);
  const schedule = scheduleOf(opts, hasBrakes(brakes.set), snapshotNeeds(opts.policy));
  const carried = schedule.carry?.take(opts.policy, writer.dryRun, started);
  const id = passId(started);
  // A policy of object rules only (no profiles) has no pod to read: the pass lists nothing.
  const lists = opts.policy.profiles.length > 0 && (!carried || carried.resume !== undefined);
  const events = kubeEventsOf(h.settings, writer, id, opts.eventsPerPass);
  // Subscribed in this order: at the end, the meter counts the Events' requests, and CloudEvents tell the finished summary.
  const observers = new Observers([
    { onPage: opts.onPage, onResult: opts.onResult, onKept: opts.onKept },
    ...(opts.observers ?? []),
    new AnswerLists(opts.maxResults ?? 200),
    lists && opts.dueWithinMs !== undefined ? new DueSoon(opts.dueWithinMs) : undefined,
    events,
    meterOf(h, tally, started),
    cloudEventsOf(h.notifier, opts.origin ?? 'cli', id, opts.eventsPerPass),
  ]);
  // A pod its write found changed (409) is read and decided again as stored, once, with this
  // pass's policy, brakes, writer, Events and context (one-pod.ts). Not under kubeTidy.retention:
  // the pass ranked each owner's pods over every page, which one pod read again cannot redo.
  const way: OneWay = { policy: opts.policy, writer, metrics: h.metrics, admit: (_pod, d) => brakes.take([d], 0), events: events?.budget };
  const again = opts.policy.retention?.length ? undefined : (d: Decision, target: RemovalTarget) => decidedAgain(h, way, d, seenAt(target), parts.context);
  const act = new ActStage({
    writer,
    metrics: h.metrics,
    events: events?.budget,
    tell: (r, d) => observers.result(r, d),
    now: () => h.now(),
    started,
    again,
  });
  const deadline = started + opts.budgetMs;
  const parts: Parts = { id, started, overdue: () => h.now() > deadline, writer, brakes, schedule, carried, lists, observers, act };
  return parts;
}

/** A pod as listed, by what its write was tied to. */
const seenAt = (t: RemovalTarget) => ({ namespace: t.namespace ?? '', name: t.name, uid: t.uid, resourceVersion: t.resourceVersion });

async function passOver(h: CleanupHandle, opts: PassOptions, tally: RequestTally): Promise<PassSummary> {
  const p = partsOf(h, opts, tally);
  const { brakes, act, schedule, carried, writer } = p;
  // A listing that fails stops the early writes too: the pass answers its error, and the next tick decides again.
  let abandoned = false;
  const fed = schedule.early || carried ? asTheyComeWrites(act, brakes, h.settings.concurrency, () => abandoned || p.overdue()) : undefined;
  let listed: Listed | undefined;
  try {
    if (carried) for (const w of carried.writes) fed!.push(w);
    if (p.lists) listed = await readAndDecide(h, opts, p, fed);
  } catch (e) {
    abandoned = true;
    fed?.close();
    await fed?.done.catch(() => undefined);
    throw e;
  }
  fed?.close();
  const early = fed ? await fed.done : { started: 0, left: [] };
  const gated = await brakes.gate(listed?.ordered.decisions ?? [], p.id, h.now());
  p.observers.kept(gated.kept);
  const { own, fannedOut } = await fanOutTail(opts.fanOut, gated.decisions, p.id, h, writer, p.overdue);
  // Pods in shards nobody took: work left undone that the next sweep picks up.
  if (fannedOut) act.undone(fannedOut.notPosted);
  const targets = listed?.targets ?? new Map<string, RemovalTarget>();
  const started = await inPolicyOrder(act, brakes, own, targets, h.settings.concurrency, () => p.overdue() || brakes.stopped);
  act.undone(brakes.leftUnstarted(own.length - started));
  const notStarted = own.slice(started).map((decision): CarriedWrite => ({ decision, target: targets.get(decision.uid)! }));
  const from = { at: carried?.at ?? p.started, resume: listed?.resume };
  const carriedOn = schedule.carry ? carryOn(schedule.carry, opts.policy, writer.dryRun, [...early.left, ...notStarted], from) : {};
  await brakes.finish(writer, h.log);
  const stoppedBy = stoppedByOf({ read: listed, earlyLeft: early.left.length, notStarted: own.length - started, brakes });
  const s = summaryOf(p, listed, { stoppedBy, ...(fannedOut ? { fannedOut } : {}), ...carriedOn });
  await p.observers.end(s);
  return s;
}

/** What reading, deciding and ordering every page left for the admit and act stages. */
interface Listed {
  ordered: Ordered;
  /** The selected pods not written early, as listed. */
  targets: Map<string, RemovalTarget>;
  /** The continue token of the first page not read (reading in steps): the next tick goes on from there. */
  resume?: string;
  timedOut: boolean;
  read: ReadSummary;
  decideMs: number;
}

/** Read and decide every page, then order: the order and the limits are over all of them (bar the early deletes, fed as they come). */
async function readAndDecide(h: CleanupHandle, opts: PassOptions, p: Parts, fed: Fed<CarriedWrite> | undefined): Promise<Listed> {
  const now = () => h.now();
  const context = await readContext(h, opts.policy, snapshotNeeds(opts.policy), opts.namespaces);
  p.context = context.snapshot;
  const order = new OrderStage(opts.policy, context.jobs, now);
  const { early, inSteps } = p.schedule;
  const decider = new DecideStage(
    opts.policy,
    context,
    order,
    { protectedNamespaces: h.settings.protectedNamespaces, early, eligibleAt: p.observers.eligibleAt },
    now,
  );
  const fieldSelector = p.brakes.countsEveryPod ? undefined : phaseFieldSelector(opts.policy);
  const { namespaces, labelSelector } = opts;
  const read = new ReadStage(h, { namespaces, labelSelector, fieldSelector, pageSize: h.settings.pageSize, from: p.carried?.resume });
  const ahead = earlyAhead(h.settings.pageSize);
  let resume: string | undefined;
  let timedOut = false;
  for await (const page of read.pages()) {
    const decided = decider.page(page.items);
    p.observers.decided(decided);
    for (const w of decided.writes) fed!.push(w);
    p.brakes.see(page.items, decided.chosen);
    p.observers.kept(decided.kept);
    const { pages, podsSeen } = read.summary;
    p.observers.page({ pages, podsSeen, ...(page.remainingItemCount === undefined ? {} : { remainingItemCount: page.remainingItemCount }) });
    // Everything kept of this page is copied out (targets, decisions, due soon): the pods go
    // now, not once the next page has replaced this one in the loop's variable (issue 27).
    page.items.length = 0;
    // Reading in steps: the next page once the writers are close to done with what waits.
    if (inSteps && page.next && fed!.pending > ahead) await read.waited(() => fed!.below(ahead));
    if (p.overdue()) {
      timedOut = true;
      if (inSteps && page.next) resume = page.next;
      break;
    }
  }
  read.summary.listMs = h.now() - p.started;
  const ordered = order.finish();
  p.observers.kept(ordered.kept);
  return { ordered, targets: decider.targets, ...(resume ? { resume } : {}), timedOut, read: read.summary, decideMs: decider.ms + order.ms };
}

/**
 * Why the pass stopped short, if it did: the percentage abort cut the plan; a cluster-wide budget
 * of the shared ledger ran out; out of time (reading, writing early, or before starting the
 * ordered writes, unless the ledger failed); the pass's own maxNoOfPodsToEvictTotal.
 */
function stoppedByOf(o: { read: Listed | undefined; earlyLeft: number; notStarted: number; brakes: PassBrakes }): PassSummary['stoppedBy'] {
  const b = o.brakes;
  if (b.summary.aborted) return 'abort';
  if (b.stopped && !b.ledgerFailed) return 'budget';
  if (o.read?.timedOut || o.earlyLeft > 0 || (o.notStarted > 0 && !b.ledgerFailed)) return 'time-budget';
  return o.read?.ordered.totalReached ? 'limit-total' : undefined;
}

/**
 * The answer, from the stages' parts: the pass's own (id, plan source, dry run), read and decide
 * (pages, times, field selector), act (counts, failures, first write), admit (brakes) and the
 * schedules (fan-out, carried on). The observers fill theirs at the end (observers/).
 */
function summaryOf(p: Parts, listed: Listed | undefined, rest: Pick<PassSummary, 'stoppedBy' | 'fannedOut' | 'carriedOn' | 'resumesList'>): PassSummary {
  const read = listed?.read;
  const { firstWriteMs, ...act } = p.act.summary;
  const { stoppedBy, ...schedules } = rest;
  return {
    pass: p.id,
    planFrom: p.carried ? (p.carried.resume ? 'resumed' : 'carried') : 'listed',
    listMs: read?.listMs ?? 0,
    decideMs: listed?.decideMs ?? 0,
    listWaitMs: read?.listWaitMs ?? 0,
    eventsSummarised: 0,
    throttled: 0,
    throttleWaitMs: 0,
    dryRun: p.writer.dryRun,
    pages: read?.pages ?? 0,
    podsSeen: read?.podsSeen ?? 0,
    selected: act.selected,
    kept: 0,
    outcomes: act.outcomes,
    requests: 0,
    durationMs: 0,
    failures: act.failures,
    results: [],
    keptPods: [],
    ...(read ? { fieldSelector: read.fieldSelector } : {}),
    ...(firstWriteMs === undefined ? {} : { firstWriteMs }),
    ...(stoppedBy ? { stoppedBy } : {}),
    ...schedules,
    ...(p.brakes.reported ? { brakes: p.brakes.summary } : {}),
  };
}

/** Sortable by time, unique enough per cluster: names shards and summary Events. */
function passId(now: number): string {
  return `${Math.floor(now).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

import { removalTarget, type RemovalTarget } from '../../kube/evict-only.js';
import { listPods } from '../../kube/list.js';
import { sweepSource } from '../../model/keys.js';
import { AcrossPages } from '../../plan/across-pages.js';
import { decide } from '../../plan/decide.js';
import type { Decision, Eligible, Kept } from '../../plan/decision.js';
import { phaseFieldSelector } from '../../plan/field-selector.js';
import { indexSnapshot } from '../../plan/snapshot.js';
import { snapshotNeeds } from '../../plan/needs.js';
import type { Policy } from '../../policy/policy.js';
import { KubeRequestError } from '../../kube/errors.js';
import { tallied, type RequestTally } from '../../kube/request-tally.js';
import { act, failuresOf, resultOf, type ActResult } from './act.js';
import { fetchContext, fetchJobOwners } from './context.js';
import type { JobOwners, Owner } from '../../plan/retention.js';
import { EventBudget } from './event-budget.js';
import { inOrder } from '../../pool/in-order.js';
import { postShards, type FanOut, type Posted } from './shards.js';
import type { CleanupHandle } from '../handle.js';
import { PassBrakes, type PassBrakesSummary } from './pass-brakes.js';
import { passEvents } from '../../notify/pods.js';
import { asTheyCome } from '../../pool/as-they-come.js';
import { carriesOn, earlyAhead, readsInSteps, splitEarly, writesEarly } from '../../plan/early.js';
import { hasBrakes } from '../../brakes/io/brakes.js';
import type { Carry, CarriedWrite } from './carry.js';

// One full pass of the policy over the cluster: what `sweep` runs on a schedule and `invoke`
// runs on request. It reads the pods a page at a time and decides each page as it comes, but
// acts only once every page is read: each strategy's order (oldest first) and the limits are
// over the whole cluster, as the descheduler's are (see plan/across-pages.ts). Memory holds
// one page of pods plus the decisions (plus the context a policy asks for). A time budget
// stops it cleanly, while reading or while acting.
//
// Acting: up to the settings' concurrency (SWEEP_CONCURRENCY) writes in flight, started in the policy's order, every
// request under the clients' rate limit (kube/throttle.ts). With a fan-out sink, a pass that
// selected more than one shard's worth keeps the first shard and posts the rest (shards.ts).

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
  /** Who runs the pass, for the CloudEvents it sends (README "Decisions as CloudEvents"); default `cli`. */
  origin?: 'sweep' | 'invoke' | 'cli';
  /** Hand what is beyond the first shard to other instances (sweep only). */
  fanOut?: FanOut;
  /** After each page is read and decided (the CLI's progress on long lists). */
  onPage?: (progress: { pages: number; podsSeen: number; remainingItemCount?: number }) => void;
  /** Each result in the policy's order, as soon as it and those before it are done (the CLI streams them rather than holding them), with the decision it carried out. */
  onResult?: (result: ActResult, decision: Decision) => void;
  /** Every pod a strategy selected and the pass keeps (a limit, a brake, retention), as found: not capped as `keptPods` is (OpenReports' skip results). */
  onKept?: (kept: readonly Kept[]) => void;
  /** invoke's explicit override of the percentage abort: lifts every stopped scope and does not judge this pass. */
  overrideAbort?: boolean;
  /**
   * Also collect the pods seen that time alone brings in within this many ms (`dueSoon`): the
   * sweep lists them in the due list (shared/due), so each is acted on at its time rather than
   * at the next sweep. Off by default (invoke, the CLI).
   */
  dueWithinMs?: number;
  /**
   * Write deletes as their page is decided, where the order cannot change what is removed
   * (plan/early.ts): the sweep's, so writing starts with the first page instead of after the
   * last. Results then come in the order they were written, not the policy's.
   */
  early?: boolean;
  /** The sweep's plan held from one tick to the next in this instance (carry.ts): what a tick did not get to, the next writes without listing. */
  carry?: Carry;
}

/** At most this many pods due soon are collected by one pass (~100 bytes each; the due list takes fewer). */
export const MAX_DUE_SOON = 10_000;

export interface PassSummary {
  dryRun: boolean;
  pages: number;
  podsSeen: number;
  selected: number;
  kept: number;
  outcomes: Record<string, number>;
  /**
   * Requests sent to the API server while this pass ran, on its behalf: counted as they leave
   * the client (kube/request-tally.ts), so LIST pages, context reads, writes, Events, the
   * brakes' ledger and a fan-out's plan ConfigMap, each retry after throttling (429) as one
   * more. A dry run's writes are sent (dryRun=All) and count; shards posted over HTTP or
   * Pub/Sub are not API server requests and do not. Another pass in the same process counts
   * its own.
   */
  requests: number;
  durationMs: number;
  /** Of which reading and deciding every page (the rest is acting; early writes go on meanwhile). 0 for a carried plan. */
  listMs: number;
  /** Of listMs, in the core deciding (pages and the final ordering). */
  decideMs: number;
  /** From the pass's start to its first write (none: no write). */
  firstWriteMs?: number;
  /**
   * Where the plan came from: a LIST of the cluster; what the last tick of this instance did not
   * get to (carry.ts); or that and the rest of the list it did not read, from where it stopped.
   */
  planFrom: 'listed' | 'carried' | 'resumed';
  /** Of listMs, waiting for the writers before reading the next page (reading in steps, plan/early.ts). */
  listWaitMs: number;
  /** Decisions this pass did not start and handed to its next tick (carry.ts). */
  carriedOn?: number;
  /** Pages this pass did not read, handed to its next tick (it goes on from there). */
  resumesList?: true;
  /**
   * time-budget: out of time; limit-total: the pass's own maxNoOfPodsToEvictTotal (one cycle);
   * budget: a cluster-wide budget of the shared ledger ran out; abort: the percentage abort cut it.
   */
  stoppedBy?: 'time-budget' | 'limit-total' | 'budget' | 'abort';
  /** What the brakes held back (README "Brakes"). */
  brakes?: PassBrakesSummary;
  /** This pass's id: names its shards and its summary Events. */
  pass: string;
  /** Shards posted for other instances, when the pass fanned out. */
  fannedOut?: Posted;
  /** Removals summed up in a namespace Event instead of one Event each. */
  eventsSummarised: number;
  /** Requests the API server throttled (429 from its own filters) and that were sent again. */
  throttled: number;
  /** Time spent waiting for the client-side rate limit or a server-asked pause. */
  throttleWaitMs: number;
  /** Selected pods not acted on because of a transient failure, or refused for good by the cluster. */
  failures: { transient: number; refused: number };
  fieldSelector?: string;
  results: ActResult[];
  keptPods: { namespace: string; name: string; strategy: string; reason: string }[];
  /** With `dueWithinMs`: the pods seen that time alone brings in by then, soonest first (at most MAX_DUE_SOON). */
  dueSoon?: Eligible[];
}

export function runPass(h: CleanupHandle, opts: PassOptions): Promise<PassSummary> {
  return tallied((tally) => passOver(h, opts, tally));
}

async function passOver(h: CleanupHandle, opts: PassOptions, tally: RequestTally): Promise<PassSummary> {
  const started = h.now();
  const deadline = started + opts.budgetMs;
  const maxResults = opts.maxResults ?? 200;
  const needs = snapshotNeeds(opts.policy);
  // The brakes of the configured policy hold whatever policy a pass runs (invoke may bring its own).
  const configured = h.policy();
  const ledger = h.brakes({ dryRun: opts.dryRun });
  const admission = h.admission({ brakes: ledger, path: 'pass', policy: () => configured });
  const brakes = new PassBrakes(ledger, admission, configured, opts.overrideAbort === true);
  const writer = h.writer({ dryRun: opts.dryRun });
  // Where the order cannot change what is removed, deletes go out as their page is decided, and
  // what a tick did not get to is the next tick's without a LIST (plan/early.ts says when).
  const conditions = { brakes: hasBrakes(brakes.set), fanOut: opts.fanOut !== undefined };
  const early = opts.early === true && writesEarly(opts.policy, conditions);
  const carry = opts.carry && carriesOn(opts.policy, conditions, needs) ? opts.carry : undefined;
  // Every decision a delete, one scope: pages are read as the writes go, and a tick's unread pages are the next tick's.
  const inSteps = carry !== undefined && early && !opts.namespaces?.length && !opts.labelSelector && readsInSteps(opts.policy, conditions, needs);
  const carried = carry?.take(opts.policy, writer.dryRun, started);
  const id = passId(started);
  const throttle = h.reader.throttle;
  const before = { throttled: throttle.throttled, waited: throttle.waitedMs };
  // Only a pass that reads pages sees pods due soon.
  const lists = !carried || carried.resume !== undefined;
  const dueSoon: Eligible[] | undefined = opts.dueWithinMs === undefined || !lists ? undefined : [];
  const s: PassSummary = {
    pass: id,
    planFrom: carried ? (carried.resume ? 'resumed' : 'carried') : 'listed',
    listMs: 0,
    decideMs: 0,
    listWaitMs: 0,
    eventsSummarised: 0,
    throttled: 0,
    throttleWaitMs: 0,
    dryRun: writer.dryRun,
    pages: 0,
    podsSeen: 0,
    selected: 0,
    kept: 0,
    outcomes: {},
    requests: 0,
    durationMs: 0,
    failures: { transient: 0, refused: 0 },
    results: [],
    keptPods: [],
  };
  const keep = (kept: readonly Kept[]) => {
    s.kept += kept.length;
    if (kept.length) opts.onKept?.(kept);
    for (const k of kept) if (s.keptPods.length < maxResults) s.keptPods.push({ namespace: k.namespace, name: k.name, strategy: k.strategy, reason: k.reason });
  };
  // Events are recorded only for real removals with RECORD_EVENTS on: only then is there a budget.
  const recording = h.settings.recordEvents && !writer.dryRun;
  const events = recording ? new EventBudget(opts.eventsPerPass ?? Number.POSITIVE_INFINITY) : undefined;
  // Every decision out as a CloudEvent (nothing built when no sink is set).
  const out = passEvents(h.notifier, opts.origin ?? 'cli', id, opts.eventsPerPass);
  const count = (result: ActResult) => {
    s.selected++;
    s.outcomes[result.outcome] = (s.outcomes[result.outcome] ?? 0) + 1;
    const f = failuresOf([result]);
    s.failures.transient += f.transient;
    s.failures.refused += f.refused;
  };
  /** One removal with its unit of every brake taken: every way it can end is a result. */
  const removal = async (decision: Decision, target: RemovalTarget, taken: Awaited<ReturnType<PassBrakes['take']>>): Promise<ActResult> => {
    const base = resultOf(decision, writer.dryRun);
    if ('deferred' in taken) return { ...base, outcome: 'deferred', message: taken.deferred.why };
    if ('error' in taken)
      return { ...base, outcome: taken.error instanceof KubeRequestError ? 'refused' : 'failed', message: `the brakes' ledger: ${taken.error.message}` };
    s.firstWriteMs ??= h.now() - started;
    let result: ActResult | undefined;
    try {
      result = await act(writer, target, decision, events);
    } finally {
      brakes.done(taken.ticket, result);
    }
    return result;
  };

  // Early writes: started as they come (in the order the pages bring them), each result handed
  // on as it ends. No brakes apply to them (writesEarly), so taking a unit sends nothing.
  const firstEarly: ActResult[] = [];
  // A listing that fails stops them too: the pass answers its error, and the next tick decides again.
  let abandoned = false;
  const fed =
    early || carried
      ? asTheyCome<CarriedWrite>(
          h.settings.concurrency,
          () => abandoned || h.now() > deadline,
          async ({ decision, target }) => {
            const result = await removal(decision, target, await brakes.take([decision], 0));
            count(result);
            if (firstEarly.length < maxResults) firstEarly.push(result);
            opts.onResult?.(result, decision);
            out?.decided(decision, result);
          },
        )
      : undefined;

  // Read and decide every page first: the order and the limits are over all of them (bar the early deletes).
  let listed: Awaited<ReturnType<typeof listAndDecide>> | undefined;
  try {
    if (carried) for (const w of carried.writes) fed!.push(w);
    if (lists) listed = await listAndDecide(carried?.resume);
  } catch (e) {
    abandoned = true;
    fed?.close();
    await fed?.done.catch(() => undefined);
    throw e;
  }
  fed?.close();
  const earlyDone = fed ? await fed.done : { started: 0, left: [] };
  if (earlyDone.left.length) s.stoppedBy = 'time-budget';

  /** `from`: the continue token an earlier tick stopped at (reading in steps). */
  async function listAndDecide(from?: string) {
    const context = await fetchContext(h, needs);
    // kubeTidy.retention groups a CronJob's Jobs' pods: which Job is whose, one paged LIST of Jobs.
    const pass = new AcrossPages(opts.policy, opts.policy.retention?.length ? await jobOwnersIn(h, opts.namespaces) : undefined);
    const fieldSelector = brakes.countsEveryPod ? undefined : phaseFieldSelector(opts.policy);
    s.fieldSelector = fieldSelector;
    // With every pod in the context, the index does not depend on the page: build it once.
    const index = context.snapshot.contextPods ? indexSnapshot({ ...context.snapshot, pods: [] }) : undefined;
    // What each selected pod was when listed: the write is tied to exactly that (uid,
    // resourceVersion, phase, request-evict-only mark). Held for the selected pods only, not the pages.
    const targets = new Map<string, RemovalTarget>();
    let resume: string | undefined;
    const scopes = opts.namespaces?.length ? opts.namespaces : [undefined];
    outer: for (const namespace of scopes) {
      const query = { namespace, labelSelector: opts.labelSelector, fieldSelector, limit: h.settings.pageSize, ...(from ? { from } : {}) };
      for await (const page of listPods(h.reader.core, query)) {
        s.pages++;
        s.podsSeen += page.items.length;
        const decidedAt = h.now();
        const whole = decide(opts.policy, { ...context.snapshot, pods: page.items }, decidedAt, {
          ...pass.options,
          protectedNamespaces: h.settings.protectedNamespaces,
          ...(index ? { index } : {}),
          ...(dueSoon ? { eligibleAt: true } : {}),
        });
        s.decideMs += h.now() - decidedAt;
        if (dueSoon && whole.eligible)
          for (const e of whole.eligible) if (e.at - decidedAt <= opts.dueWithinMs! && dueSoon.length < MAX_DUE_SOON) dueSoon.push(e);
        const chosen = new Set(whole.decisions.map((d) => d.uid));
        const { early: now, rest: plan } = early ? splitEarly(whole) : { early: [], rest: whole };
        const writeNow = new Map(now.map((d) => [d.uid, d]));
        if (whole.decisions.length)
          for (const pod of page.items) {
            const uid = pod.metadata.uid!;
            const decision = writeNow.get(uid);
            if (decision) fed!.push({ decision, target: removalTarget(pod) });
            else if (chosen.has(uid)) targets.set(uid, removalTarget(pod));
          }
        brakes.see(page.items, chosen);
        keep(plan.kept);
        pass.add(plan, page.items);
        opts.onPage?.({
          pages: s.pages,
          podsSeen: s.podsSeen,
          ...(page.remainingItemCount === undefined ? {} : { remainingItemCount: page.remainingItemCount }),
        });
        // Everything kept of this page is copied out (targets, decisions, due soon): the pods go
        // now, not once the next page has replaced this one in the loop's variable (issue 27).
        page.items.length = 0;
        // Reading in steps: the next page once the writers are close to done with what waits.
        if (inSteps && page.next && fed!.pending > earlyAhead(h.settings.pageSize)) {
          const waited = h.now();
          await fed!.below(earlyAhead(h.settings.pageSize));
          s.listWaitMs += h.now() - waited;
        }
        if (h.now() > deadline) {
          s.stoppedBy = 'time-budget';
          if (inSteps && page.next) resume = page.next;
          break outer;
        }
      }
    }
    s.listMs = h.now() - started;
    const finishing = h.now();
    const finished = pass.finish();
    s.decideMs += h.now() - finishing;
    keep(finished.kept);
    return { finished, targets, resume };
  }
  const totalReached = listed?.finished.totalReached ?? false;
  const gated = await brakes.gate(listed?.finished.decisions ?? [], id, h.now());
  keep(gated.kept);
  const decisions = gated.decisions;
  let own = decisions;
  if (opts.fanOut && decisions.length > opts.fanOut.size && h.now() <= deadline) {
    own = decisions.slice(0, opts.fanOut.size);
    s.fannedOut = await postShards(opts.fanOut, id, decisions.slice(opts.fanOut.size), sweepSource(id), h, writer);
    // Pods in shards nobody took: work left undone that the next sweep picks up.
    s.failures.transient += s.fannedOut.notPosted;
  }
  const targets = listed?.targets ?? new Map<string, RemovalTarget>();
  // Each result is counted as it comes and then let go: the answer lists the first maxResults
  // (in the policy's order), and onResult gets every one in that order, so only those finished
  // ahead of one still in flight wait here. Nothing per removed pod outlives its write.
  const first: ActResult[] = [];
  const waiting = new Map<number, ActResult>();
  let emitted = 0;
  const acted = await inOrder(
    own,
    h.settings.concurrency,
    () => h.now() > deadline || brakes.stopped,
    async (decision, i) => {
      const taken = await brakes.take(own, i);
      const target = targets.get(decision.uid)!;
      targets.delete(decision.uid);
      const result = await removal(decision, target, taken);
      count(result);
      if (i < maxResults) first[i] = result;
      // Handed on in the policy's order: each as soon as every one before it is done.
      if (opts.onResult || out) {
        waiting.set(i, result);
        for (let next; (next = waiting.get(emitted)) !== undefined; emitted++) {
          waiting.delete(emitted);
          opts.onResult?.(next, own[emitted]!);
          out?.decided(own[emitted]!, next);
        }
      }
      return true;
    },
  );
  // A cluster budget that held back any removal stopped the pass, even when every write had already started.
  if (brakes.stopped && !brakes.ledgerFailed) s.stoppedBy = 'budget';
  else if (acted.started < own.length && !brakes.ledgerFailed) s.stoppedBy = 'time-budget';
  if (brakes.stopped && !brakes.ledgerFailed) brakes.notStarted(own.length - acted.started);
  // Not started because the ledger failed: work left undone, as a transient failure (503, the scheduler retries).
  if (brakes.ledgerFailed) s.failures.transient += own.length - acted.started;
  if (brakes.summary.aborted) s.stoppedBy = 'abort';
  // The early writes first (they went first), then the ordered ones: started in order, so the started ones are the first.
  for (const result of [...firstEarly, ...first]) if (result && s.results.length < maxResults) s.results.push(result);
  // What this tick did not start is the next one's, if it may be (carry.ts).
  if (carry) {
    const left = [...earlyDone.left, ...own.slice(acted.started).map((decision) => ({ decision, target: targets.get(decision.uid)! }))];
    const resume = listed?.resume;
    carry.hold(opts.policy, writer.dryRun, { writes: left, at: carried?.at ?? started, ...(resume ? { resume } : {}) });
    if (left.length) s.carriedOn = left.length;
    if (resume) s.resumesList = true;
  }
  if (events) {
    s.eventsSummarised = events.summarised;
    await events.flush(writer, id);
  }
  if (totalReached && !s.stoppedBy) s.stoppedBy = 'limit-total';
  await brakes.finish(writer, h.log);
  if (brakes.summary.deferred || brakes.summary.aborted || brakes.summary.resumed || brakes.summary.ledgerRequests) s.brakes = brakes.summary;
  s.requests = tally.sent;
  s.throttled = throttle.throttled - before.throttled;
  s.throttleWaitMs = Math.round(throttle.waitedMs - before.waited);
  if (dueSoon) s.dueSoon = dueSoon.sort((a, b) => a.at - b.at);
  s.durationMs = h.now() - started;
  out?.completed(passCompletion(s));
  return s;
}

/** A pass's summary counts for its pass.completed event: never the per-pod lists. */
function passCompletion(s: PassSummary) {
  const { results: _results, keptPods: _kept, pass: _pass, dueSoon, failures, durationMs, dryRun, ...counts } = s;
  const outcome = failures.transient + failures.refused ? 'incomplete' : 'complete';
  return { dryRun, outcome, durationMs, failures, counts: { ...counts, ...(dueSoon ? { dueSoon: dueSoon.length } : {}) } };
}

/** The CronJob of each Job in the pass's namespaces (every namespace when it names none). */
async function jobOwnersIn(h: CleanupHandle, namespaces: readonly string[] | undefined): Promise<JobOwners> {
  const jobs = new Map<string, Owner>();
  for (const namespace of namespaces?.length ? namespaces : [undefined]) for (const [k, v] of (await fetchJobOwners(h, namespace)).jobs) jobs.set(k, v);
  return jobs;
}

/** Sortable by time, unique enough per cluster: names shards and summary Events. */
function passId(now: number): string {
  return `${Math.floor(now).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

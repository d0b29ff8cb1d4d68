import { listPods } from '../kube/index.js';
import type { Pod } from '../model/kube.js';
import { decide, newSession } from '../plan/decide.js';
import { phaseFieldSelector } from '../plan/field-selector.js';
import { snapshotNeeds } from '../plan/needs.js';
import type { Policy } from '../policy/policy.js';
import { act, type ActResult } from './act.js';
import { fetchContext } from './context.js';
import type { Runtime } from './runtime.js';

// One full pass of the policy over the cluster, page by page: what `sweep` runs on a
// schedule and `invoke` runs on request. Memory is bounded by the page size (plus the
// context a policy asks for); limits span the whole pass; a time budget stops it cleanly.

export interface PassOptions {
  policy: Policy;
  namespaces?: string[];
  labelSelector?: string;
  /** Through the API server's dryRun=All: admitted (PDBs checked) but nothing persisted. */
  dryRun: boolean;
  budgetMs: number;
  /** How many per-pod results the answer lists (the counts are always complete). */
  maxResults?: number;
}

export interface PassSummary {
  dryRun: boolean;
  pages: number;
  podsSeen: number;
  selected: number;
  kept: number;
  outcomes: Record<string, number>;
  /** API requests: LIST pages, context reads, writes and Events. */
  requests: number;
  durationMs: number;
  stoppedBy?: 'time-budget' | 'limit-total';
  fieldSelector?: string;
  results: ActResult[];
  keptPods: { namespace: string; name: string; strategy: string; reason: string }[];
}

export async function runPass(rt: Runtime, opts: PassOptions): Promise<PassSummary> {
  const started = rt.now();
  const deadline = started + opts.budgetMs;
  const maxResults = opts.maxResults ?? 200;
  const session = newSession(opts.policy);
  const context = await fetchContext(rt, snapshotNeeds(opts.policy));
  const fieldSelector = phaseFieldSelector(opts.policy);
  const s: PassSummary = { dryRun: opts.dryRun, pages: 0, podsSeen: 0, selected: 0, kept: 0, outcomes: {}, requests: context.requests, durationMs: 0, fieldSelector, results: [], keptPods: [] };

  const scopes = opts.namespaces?.length ? opts.namespaces : [undefined];
  outer: for (const namespace of scopes) {
    let listRequests = 0;
    for await (const page of listPods(rt.clients.core, { namespace, labelSelector: opts.labelSelector, fieldSelector, limit: rt.config.SWEEP_PAGE_SIZE })) {
      listRequests = page.requests;
      s.pages++;
      s.podsSeen += page.items.length;
      const plan = decide(opts.policy, { ...context.snapshot, pods: page.items as Pod[] }, rt.now(), { session, protectedNamespaces: rt.config.PROTECTED_NAMESPACES });
      s.kept += plan.kept.length;
      for (const k of plan.kept) if (s.keptPods.length < maxResults) s.keptPods.push({ namespace: k.namespace, name: k.name, strategy: k.strategy, reason: k.reason });
      for (const decision of plan.decisions) {
        if (rt.now() > deadline) {
          s.stoppedBy = 'time-budget';
          break outer;
        }
        s.selected++;
        const result = await act(rt, decision, { dryRun: opts.dryRun, throwTransient: false });
        s.requests += 1 + (rt.config.RECORD_EVENTS && !opts.dryRun && (result.outcome === 'deleted' || result.outcome === 'evicted') ? 1 : 0);
        s.outcomes[result.outcome] = (s.outcomes[result.outcome] ?? 0) + 1;
        if (s.results.length < maxResults) s.results.push(result);
      }
      if (session.limiter.totalReached()) {
        s.stoppedBy = 'limit-total';
        break outer;
      }
      if (rt.now() > deadline) {
        s.stoppedBy = 'time-budget';
        break outer;
      }
    }
    s.requests += listRequests;
  }
  s.durationMs = rt.now() - started;
  return s;
}

// What a pass answers (runPass): the sweep's, invoke's and the CLI's summary and their JSON. Each
// field is one stage's or one observer's (pass.ts says whose); this shape is the contract, kept
// as it was when one function filled it.
import type { Eligible } from '../../selection/decision.js';
import type { ActResult } from './act.js';
import type { PassBrakesSummary } from './pass-brakes.js';
import type { Posted } from './shards.js';

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
  /** Of listMs, waiting for the writers before reading the next page (reading in steps, selection/early.ts). */
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
  /** What the brakes held back (docs/brakes.md). */
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

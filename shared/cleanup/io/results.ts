// What pod cleanup's one-pod path and a shard make of their work, as pod cleanup's own types:
// the due list (due/io/schedule.ts) and podTerminated read them by their fields, typed. A target
// in functions/ answers them as they are (each is an `Answer`: model/answer.ts); pod cleanup
// itself knows nothing of what a target answers.
import type { Deferral } from '../../model/removal.js';
import type { Kept } from '../../selection/decision.js';
import type { ActResult } from './act.js';

/** The work that did not get done: transient (a retry may do it) or refused (the cluster said no). */
export interface Failures {
  transient: number;
  refused: number;
}

/** One of the owner's older pods retention pushed out, as the event's removal left it. */
export interface OlderRemoved {
  pod: string;
  outcome: string;
  why: string;
}

/** What `removeSelected` made of one stored pod (a type, not an interface, so a target may answer it as it is). */
export type OnePodResult = {
  /** gone, stale, nothing-to-do, kept, deferred, or what the removal's write answered. */
  outcome: string;
  /** namespace/name. */
  pod: string;
  why: string;
  /** Kept only until a time (RFC 3339), as stored: what the event path schedules from, with `uid`. */
  eligibleAt?: string;
  /** The stored pod's uid, with `eligibleAt`. */
  uid?: string;
  kept?: Kept[];
  /** The brakes held it back: which budget, and when it frees. */
  deferred?: Deferral;
  /** The removal's write, when one was sent. */
  result?: ActResult;
  older?: OlderRemoved[];
  failures?: Failures;
};

/** What one shard of a sweep did (`actShard`). */
export type ShardResult = {
  outcome: 'shard-done' | 'shard-incomplete';
  shard: { pass: string; index: number; of: number; pods: number; started: number };
  outcomes: Record<string, number>;
  failures: Failures;
  durationMs: number;
  requests: number;
};

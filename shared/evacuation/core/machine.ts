// The evacuation state machine: what is stored on the pod, plus what was observed of the pod
// and its migration, plus `now` -> the one next step. Pure: decide.ts turns the step into the
// effects that carry it out, io/effects.ts applies them. Every step is safe to repeat.
import { migrationName, readState, type RunState } from './annotations.js';
import { EVACUATION_ANNOTATIONS as ANNOTATIONS } from '../../model/keys.js';
import type { Outcome } from './effects.js';
import { evictionRequestName } from './eviction-request.js';
import type { MigrationView, PodView } from './views.js';

export type { MigrationView, PodView } from './views.js';

export interface Settings {
  /** How long an attempt may run without being confirmed done before it is aborted. */
  timeoutMs: number;
  /** Attempts in all (the first included) before a failure is final. */
  maxAttempts: number;
  /** Backoff after the n-th failure: backoffMs * 2^(n-1), at most maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  /** KubeVirt launcher pods: create the migration ourselves, or go through the Eviction API. */
  kubevirtMethod: 'eviction' | 'migration';
  /**
   * An attempt asked through an EvictionRequest that no controller answers within this long
   * (no Eviction with a responder past Inactive, no condition) withdraws it and takes the direct
   * path instead, once per evacuation. Undefined: it waits until the deadline.
   */
  requestAnswerMs?: number;
  /**
   * An evacuation's first start asks the admission port (the policy's limits) before anything is
   * written (EVACUATION_CHARGE_BUDGETS). Off: its slots alone pace it.
   */
  chargeBudgets?: boolean;
}

export interface Observation {
  /** undefined: the pod is gone (or another pod now has its name). */
  pod?: PodView;
  /** Who asks when the pod carries no request annotation: a strategy that decided to evict a
   *  pod marked request-evict-only (the descheduler's contract). */
  strategyRequest?: string;
  /** The current attempt's migration (or EvictionRequest, seen as one), when one exists. */
  migration?: MigrationView;
  /** lifecycle.k8s.io is served and used: a new attempt asks through an EvictionRequest. */
  evictionRequests?: boolean;
  now: number;
}

export type { Outcome } from './effects.js';

export type Step =
  | { do: 'none'; why: string }
  | { do: 'wait'; why: string }
  /** Take a slot (limits), write `next` with the pod's resourceVersion as precondition, then drive. */
  | { do: 'start'; next: Extract<RunState, { state: 'Started' }>; requestedBy: string; why: string }
  /** (Re)do the current attempt's start: create the migration (409 = fine) or evict. */
  | { do: 'drive'; why: string }
  /**
   * No controller answered the attempt's EvictionRequest in time: withdraw it (`withdraw`), then
   * write `next` (the same attempt on the direct path, `fallback` recorded) with the pod's
   * resourceVersion as precondition, then drive.
   */
  | { do: 'fallback'; withdraw: string; next: Extract<RunState, { state: 'Started' }>; why: string }
  /** Store the migration found for this attempt. */
  | { do: 'record'; migration: string; why: string }
  | { do: 'backoff'; next: Extract<RunState, { state: 'Backoff' }>; why: string }
  /** The end: abort deletes the migration; write=false when there is no pod left to write. */
  | { do: 'end'; outcome: Outcome; abort: boolean; write: boolean; why: string };

const TERMINAL_MIGRATION: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);

export function isDirect(pod: PodView, s: Settings): boolean {
  return pod.vmi !== undefined && s.kubevirtMethod === 'migration';
}

export function backoffMs(failures: number, s: Settings): number {
  return Math.min(s.maxBackoffMs, s.backoffMs * 2 ** Math.max(0, failures - 1));
}

/** A migration, or an EvictionRequest, as the reasons name it, with what its status says. */
const said = (m: MigrationView) => `${m.what ?? `migration ${m.name}`}${m.detail ? ` (${m.detail})` : ''}`;

function start(pod: PodView, attempt: number, now: number, s: Settings, requestedBy: string, why: string, viaRequest: boolean, fallback?: string): Step {
  return { do: 'start', next: attemptState(pod, attempt, now, s, viaRequest, fallback), requestedBy, why };
}

function attemptState(
  pod: PodView,
  attempt: number,
  now: number,
  s: Settings,
  viaRequest: boolean,
  fallback?: string,
): Extract<RunState, { state: 'Started' }> {
  return {
    state: 'Started' as const,
    attempt,
    startedAt: now,
    deadline: now + s.timeoutMs,
    // Named before it exists, so whoever creates it creates the same one. An attempt through
    // the EvictionRequest API leaves how to evict (a migration or not) to the pod's responders.
    // An evacuation that fell back never asks through a request again.
    ...(viaRequest && !fallback
      ? { evictionRequest: evictionRequestName(pod.uid, attempt) }
      : isDirect(pod, s)
        ? { migration: migrationName(pod.uid, attempt) }
        : {}),
    ...(fallback ? { fallback } : {}),
  };
}

/**
 * The same attempt, on the path it would take without the EvictionRequest API (a migration of
 * our own, or the Eviction API: KubeVirt's or a request-evict-only owner's webhook answers it),
 * with a deadline of its own, the reason recorded so that nobody falls back twice or asks again.
 */
function fallBack(pod: PodView, run: Extract<RunState, { state: 'Started' }>, m: MigrationView | undefined, now: number, s: Settings): Step {
  const secs = Number((s.requestAnswerMs! / 1000).toFixed(1));
  const direct = isDirect(pod, s) ? `migrated directly (migration ${migrationName(pod.uid, run.attempt)})` : 'evicted directly through the Eviction API';
  const fallback = `no EvictionRequest controller answered within ${secs} s; withdrew EvictionRequest ${run.evictionRequest} and ${direct}`;
  const seen = m ? said(m) : `EvictionRequest ${run.evictionRequest} not found`;
  return {
    do: 'fallback',
    withdraw: run.evictionRequest!,
    next: attemptState(pod, run.attempt, now, s, false, fallback),
    why: `${fallback} (${seen} is ${m?.phase || 'new'})`,
  };
}

export function next(o: Observation, s: Settings): Step {
  const { pod, migration: m, now } = o;
  if (!pod) return { do: 'end', outcome: 'Succeeded', abort: false, write: false, why: 'the pod is gone' };
  const run = readState(pod.annotations);
  const requestedBy = pod.annotations[ANNOTATIONS.request] ?? o.strategyRequest;
  const leaving = pod.deleting || pod.phase === 'Succeeded' || pod.phase === 'Failed';

  if (run.state === 'Idle') {
    if (!requestedBy) return { do: 'none', why: 'no evacuation requested' };
    if (leaving) return { do: 'none', why: 'the pod is already terminal or terminating' };
    return start(pod, 1, now, s, requestedBy, `requested by ${requestedBy}`, o.evictionRequests === true);
  }
  if (leaving) return { do: 'end', outcome: 'Succeeded', abort: false, write: !pod.deleting, why: `the pod is ${pod.deleting ? 'terminating' : pod.phase}` };
  // Withdrawn: the requester removed its annotation while work was under way.
  if (!pod.annotations[ANNOTATIONS.request])
    return { do: 'end', outcome: 'Cancelled', abort: m !== undefined && !TERMINAL_MIGRATION.has(m.phase), write: true, why: 'the request was withdrawn' };

  if (run.state === 'Backoff') {
    if (now < run.retryAt) return { do: 'wait', why: `attempt ${run.attempt + 1} at ${new Date(run.retryAt).toISOString()}` };
    return start(pod, run.attempt + 1, now, s, requestedBy!, `attempt ${run.attempt + 1} after a failed one`, o.evictionRequests === true, run.fallback);
  }

  // Started.
  if (m?.phase === 'Succeeded') return { do: 'end', outcome: 'Succeeded', abort: false, write: true, why: `${said(m)} succeeded` };
  // Before the deadline: sparse ticks past both still get the direct path, not a timeout.
  if (run.evictionRequest && s.requestAnswerMs !== undefined && !m?.answered && now >= run.startedAt + s.requestAnswerMs) return fallBack(pod, run, m, now, s);
  if (now >= run.deadline) {
    const abort = m !== undefined && m.phase !== 'Failed';
    return {
      do: 'end',
      outcome: 'TimedOut',
      abort,
      write: true,
      why: `attempt ${run.attempt} not confirmed done within ${Math.round(s.timeoutMs / 1000)} s${m ? `; ${said(m)} is ${m.phase || 'new'}` : ''}`,
    };
  }
  if (m && !m.recorded) return { do: 'record', migration: m.name, why: `migration ${m.name} found for the VMI` };
  if (m?.phase === 'Failed') {
    if (run.attempt >= s.maxAttempts)
      return { do: 'end', outcome: 'Failed', abort: false, write: true, why: `${said(m)} failed; ${run.attempt} of ${s.maxAttempts} attempts used` };
    const wait = backoffMs(run.attempt, s);
    return {
      do: 'backoff',
      next: { state: 'Backoff', attempt: run.attempt, retryAt: now + wait, ...(run.fallback ? { fallback: run.fallback } : {}) },
      why: `${said(m)} failed; retry in ${Math.round(wait / 1000)} s`,
    };
  }
  if (m) return { do: 'wait', why: `${said(m)} is ${m.phase || 'new'}` };
  return {
    do: 'drive',
    why: run.evictionRequest
      ? `EvictionRequest ${run.evictionRequest} not there yet`
      : run.migration
        ? `migration ${run.migration} not there yet`
        : 'not confirmed started yet',
  };
}

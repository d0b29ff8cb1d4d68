// Everything an evacuation knows lives in the pod's annotations, so any instance can pick it
// up after a crash: nothing is kept in a process. Reading and writing them is pure.
import { EVACUATION_ANNOTATIONS as ANNOTATIONS, EVACUATION_MARKERS as MARKERS } from '../../model/keys.js';

// The keys live in model/keys.ts, with every name kube-tidy owns (kube/ and other families read them).
export { ANNOTATIONS, MARKERS };

export type RunState =
  | { state: 'Idle' }
  | { state: 'Started'; attempt: number; startedAt: number; deadline: number; migration?: string; evictionRequest?: string; fallback?: string }
  | { state: 'Backoff'; attempt: number; retryAt: number; fallback?: string };

const time = (v: string | undefined): number => (v ? Date.parse(v) : Number.NaN);

/**
 * The state stored on a pod. Unreadable values (a person edited them) read as a fresh
 * Started at attempt 1 that times out at once, so a broken record ends cleanly instead of
 * running forever.
 */
export function readState(annotations: Record<string, string> | undefined): RunState {
  const a = annotations ?? {};
  const attempt = Number(a[ANNOTATIONS.attempt]);
  const ok = Number.isInteger(attempt) && attempt >= 1;
  const fallback = a[ANNOTATIONS.fallback] ? { fallback: a[ANNOTATIONS.fallback] } : {};
  if (a[ANNOTATIONS.state] === 'Started') {
    const startedAt = time(a[ANNOTATIONS.startedAt]);
    const deadline = time(a[ANNOTATIONS.deadline]);
    return {
      state: 'Started',
      attempt: ok ? attempt : 1,
      startedAt: Number.isNaN(startedAt) ? 0 : startedAt,
      deadline: Number.isNaN(deadline) || !ok ? 0 : deadline,
      ...(a[ANNOTATIONS.migration] ? { migration: a[ANNOTATIONS.migration] } : {}),
      ...(a[ANNOTATIONS.evictionRequest] ? { evictionRequest: a[ANNOTATIONS.evictionRequest] } : {}),
      ...fallback,
    };
  }
  if (a[ANNOTATIONS.state] === 'Backoff') {
    const retryAt = time(a[ANNOTATIONS.retryAt]);
    return { state: 'Backoff', attempt: ok ? attempt : 1, retryAt: Number.isNaN(retryAt) ? 0 : retryAt, ...fallback };
  }
  return { state: 'Idle' };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The annotation values (null = remove) that store `s`; the in-progress marker goes with it. */
export function writeState(s: RunState, holder: string): Record<string, string | null> {
  const cleared = Object.fromEntries(MARKERS.map((k) => [k, null])) as Record<string, string | null>;
  if (s.state === 'Idle') return cleared;
  const fallback: Record<string, string> = s.fallback ? { [ANNOTATIONS.fallback]: s.fallback } : {};
  if (s.state === 'Backoff')
    return {
      ...cleared,
      [ANNOTATIONS.state]: 'Backoff',
      [ANNOTATIONS.attempt]: String(s.attempt),
      [ANNOTATIONS.retryAt]: iso(s.retryAt),
      [ANNOTATIONS.inProgress]: holder,
      ...fallback,
    };
  return {
    ...cleared,
    [ANNOTATIONS.state]: 'Started',
    [ANNOTATIONS.attempt]: String(s.attempt),
    [ANNOTATIONS.startedAt]: iso(s.startedAt),
    [ANNOTATIONS.deadline]: iso(s.deadline),
    [ANNOTATIONS.inProgress]: holder,
    ...(s.migration ? { [ANNOTATIONS.migration]: s.migration } : {}),
    ...(s.evictionRequest ? { [ANNOTATIONS.evictionRequest]: s.evictionRequest } : {}),
    ...fallback,
  };
}

/**
 * The deterministic migration name for an attempt: two instances (or one that crashed and
 * its successor) that create it for the same attempt meet at 409 AlreadyExists instead of
 * starting a second migration.
 */
export function migrationName(podUid: string, attempt: number): string {
  return `kube-tidy-${podUid}-${attempt}`;
}

/**
 * Whether a request was written by kube-tidy's own writer for a removal it already charged to
 * the policy's limits: pod cleanup's (`strategy:<name>`, cleanup/io/act.ts) and defrag's
 * (`defrag`, defrag/io/step.ts) count a request-evict-only pod's evacuation request as spent
 * when they ask (kube/admission.ts `removalCharged`), so its start must not be charged again.
 */
export const chargedWhenRequested = (requester: string | undefined): boolean => requester === 'defrag' || (requester?.startsWith('strategy:') ?? false);

// What happened to each demo pod, told from everything that was seen, in whatever order it
// arrived. The watch and the functions' answers are two streams: under load a function's
// "deleted" answer is logged after the watch has already seen the pod gone, and an earlier
// answer about the same pod ("nothing-to-do" while it was still Pending) must not be the
// last word. So nothing is decided as it arrives: every observation is kept, correlated by
// the pod's uid (answers that carry none are matched by name to the pod the watch knows), and
// the story is told at the end, with kube-tidy's own writes outranking what it said earlier.
// A removal at the pod's eligibility answers no request (a timer in podTerminated acted): it is
// heard from its decision CloudEvent (decisions.ts), which says it was due, and when.

export interface WatchSeen {
  kind: 'watch';
  at: number;
  namespace: string;
  name: string;
  uid: string;
  phase?: string;
  exitCode?: number;
  deleted?: boolean;
}

export interface AnswerSeen {
  kind: 'answer';
  at: number;
  /** The target that answered: podTerminated (an event), sweep (a pass). */
  by: string;
  namespace: string;
  name: string;
  /** The pod's uid when the answer names it (an act result); else matched by name. */
  uid?: string;
  outcome: string;
  why: string;
  strategy?: string;
  dryRun?: boolean;
  /** The answer said when it is scheduled to be acted on (its eligibleAt), RFC 3339. */
  scheduled?: string;
  /** Acted on at its eligibility, not on an event (the decision CloudEvent's `due`). */
  due?: Due;
}

export interface Due {
  /** The eligibility time it was scheduled for, RFC 3339. */
  at: string;
  /** timer: podTerminated's own timer; tick: a tick reading the due list. */
  by: string;
}

export type Observation = WatchSeen | AnswerSeen;

export interface PodStory {
  namespace: string;
  name: string;
  uid: string;
  phase?: string;
  exitCode?: number;
  terminalAt?: number;
  goneAt?: number;
  /** deleted / evicted (by kube-tidy), blocked, scheduled, kept, nothing-to-do, gone (by someone else), untouched. */
  result: string;
  /** Which function acted or last spoke about the pod. */
  by?: string;
  strategy?: string;
  why: string;
  /** Removed at its eligibility by a due timer or tick (deleted/evicted only). */
  due?: Due;
  /** The eligibility time it was last scheduled for, RFC 3339. */
  scheduled?: string;
}

/**
 * How a pod's story ends, for the summary: `on-time` removed by kube-tidy at its eligibility (a
 * timer or tick), `swept` by a sweep, `deleted`/`evicted` on its own event; otherwise the result.
 */
export function fateOf(p: PodStory): string {
  if (!ACTED.has(p.result)) return p.result;
  if (p.due) return 'on-time';
  return p.by === 'sweep' ? 'swept' : p.result;
}

const TERMINAL = new Set(['Succeeded', 'Failed']);
const ACTED = new Set(['deleted', 'evicted']);

export function tell(observations: readonly Observation[]): PodStory[] {
  const pods = new Map<string, PodStory>();
  const uidByName = new Map<string, string>();
  const seen = [...observations].sort((a, b) => a.at - b.at);
  for (const o of seen) {
    if (o.kind !== 'watch') continue;
    uidByName.set(`${o.namespace}/${o.name}`, o.uid);
    let p = pods.get(o.uid);
    if (!p) pods.set(o.uid, (p = { namespace: o.namespace, name: o.name, uid: o.uid, result: 'untouched', why: '' }));
    if (o.phase) p.phase = o.phase;
    if (o.exitCode !== undefined) p.exitCode = o.exitCode;
    if (o.phase && TERMINAL.has(o.phase) && p.terminalAt === undefined) p.terminalAt = o.at;
    if (o.deleted && p.goneAt === undefined) p.goneAt = o.at;
  }
  const answers = new Map<string, AnswerSeen[]>();
  for (const o of seen) {
    if (o.kind !== 'answer') continue;
    const uid = o.uid ?? uidByName.get(`${o.namespace}/${o.name}`);
    if (!uid) continue;
    if (!pods.has(uid)) pods.set(uid, { namespace: o.namespace, name: o.name, uid, result: 'untouched', why: '' });
    answers.set(uid, [...(answers.get(uid) ?? []), o]);
  }
  for (const p of pods.values()) Object.assign(p, verdict(p, answers.get(p.uid) ?? []));
  return [...pods.values()].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

/** The one answer that tells the story, by rank rather than by arrival. */
function verdict(p: PodStory, answers: AnswerSeen[]): Pick<PodStory, 'result' | 'by' | 'strategy' | 'why' | 'due' | 'scheduled'> {
  const said = (a: AnswerSeen) => ({ by: a.by, why: a.why, ...(a.strategy ? { strategy: a.strategy } : {}) });
  const scheduled = answers.filter((a) => a.scheduled).at(-1)?.scheduled;
  const when = scheduled ? { scheduled } : {};
  const acted = answers.find((a) => ACTED.has(a.outcome) && a.dryRun !== true);
  if (acted) {
    const strategy = acted.strategy ?? strategyOf(acted.why);
    if (!acted.due) return { result: acted.outcome, ...said(acted), strategy, ...when };
    const why = `at eligibility (${clock(acted.due.at)}), by ${acted.due.by === 'tick' ? 'a due-list tick' : 'its timer'}: ${acted.why}`;
    return { result: acted.outcome, ...said(acted), why, strategy, due: acted.due, ...when };
  }
  if (p.goneAt !== undefined) return { result: 'gone', why: 'removed, but not by kube-tidy (no kube-tidy write answered for it)', ...when };
  const last = (outcome: string) => answers.filter((a) => a.outcome === outcome).at(-1);
  const blocked = last('blocked');
  if (blocked) return { result: 'blocked', ...said(blocked), strategy: blocked.strategy ?? strategyOf(blocked.why) };
  const latest = answers.at(-1);
  if (!latest) return { result: 'untouched', why: 'no function answered about it' };
  // Waiting for its time, as the answer said (a later answer that schedules nothing ends it).
  if (latest.scheduled) return { result: 'scheduled', ...said(latest), why: `for ${clock(latest.scheduled)}: ${latest.why}`, ...when };
  return { result: latest.outcome, ...said(latest) };
}

/** 12:00:20 (UTC), as the demo prints times: the date is today's. */
export const clock = (iso: string): string => new Date(iso).toISOString().slice(11, 19);

/** Decisions' reasons start with the strategy's name ("PodLifeTime: phase Failed; ..."). */
function strategyOf(reason: string): string | undefined {
  return /^([A-Z][A-Za-z]+):/.exec(reason)?.[1];
}

/** For the table: how long after the pod ended it was gone, when both were seen. */
export const endedToGone = (p: PodStory): number | undefined => (p.terminalAt !== undefined && p.goneAt !== undefined ? p.goneAt - p.terminalAt : undefined);

/** For a pod removed at its eligibility: how long after that time it was gone. */
export const eligibleToGone = (p: PodStory): number | undefined => (p.due && p.goneAt !== undefined ? p.goneAt - Date.parse(p.due.at) : undefined);

/** What a summary line needs of an expectation (workload.ts EXPECTED). */
export interface Expected {
  prefix: string;
  namespace: string;
  expect: string;
  story: string;
}

/**
 * One summary line per expectation, counted from the stories: how many of its pods ended as it
 * says, and how the others did. A pod the sweep happened to reach first is counted as swept.
 */
export function summaryLine(e: Expected, stories: readonly PodStory[]): string {
  const fates = stories.filter((r) => r.namespace === e.namespace && r.name.startsWith(e.prefix)).map(fateOf);
  const as = (f: string) => f === e.expect || (e.expect === 'kept' && f === 'nothing-to-do');
  const others = new Map<string, number>();
  for (const f of fates.filter((x) => !as(x))) others.set(f, (others.get(f) ?? 0) + 1);
  const rest = others.size ? ` (${[...others].map(([f, n]) => `${n} ${f}`).join(', ')})` : '';
  return `${e.expect.padEnd(8)} ${e.namespace}/${e.prefix}*: ${fates.filter(as).length} of ${fates.length}${rest}: ${e.story}`;
}

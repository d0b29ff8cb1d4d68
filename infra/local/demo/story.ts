// What happened to each demo pod, told from everything that was seen, in whatever order it
// arrived. The watch and the functions' answers are two streams: under load a function's
// "deleted" answer is logged after the watch has already seen the pod gone, and an earlier
// answer about the same pod ("nothing-to-do" while it was still Pending) must not be the
// last word. So nothing is decided as it arrives: every observation is kept, correlated by
// the pod's uid (answers that carry none are matched by name to the pod the watch knows), and
// the story is told at the end, with kube-tidy's own writes outranking what it said earlier.

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
  /** deleted / evicted (by kube-tidy), blocked, kept, nothing-to-do, gone (by someone else), untouched. */
  result: string;
  /** Which function acted or last spoke about the pod. */
  by?: string;
  strategy?: string;
  why: string;
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
function verdict(p: PodStory, answers: AnswerSeen[]): Pick<PodStory, 'result' | 'by' | 'strategy' | 'why'> {
  const said = (a: AnswerSeen) => ({ by: a.by, why: a.why, ...(a.strategy ? { strategy: a.strategy } : {}) });
  const acted = answers.find((a) => ACTED.has(a.outcome) && a.dryRun !== true);
  if (acted) return { result: acted.outcome, ...said(acted), strategy: acted.strategy ?? strategyOf(acted.why) };
  if (p.goneAt !== undefined) return { result: 'gone', why: 'removed, but not by kube-tidy (no kube-tidy write answered for it)' };
  const last = (outcome: string) => answers.filter((a) => a.outcome === outcome).at(-1);
  const blocked = last('blocked');
  if (blocked) return { result: 'blocked', ...said(blocked), strategy: blocked.strategy ?? strategyOf(blocked.why) };
  const latest = answers.at(-1);
  if (!latest) return { result: 'untouched', why: 'no function answered about it' };
  return { result: latest.outcome, ...said(latest) };
}

/** Decisions' reasons start with the strategy's name ("PodLifeTime: phase Failed; ..."). */
function strategyOf(reason: string): string | undefined {
  return /^([A-Z][A-Za-z]+):/.exec(reason)?.[1];
}

/** For the table: how long after the pod ended it was gone, when both were seen. */
export const endedToGone = (p: PodStory): number | undefined => (p.terminalAt !== undefined && p.goneAt !== undefined ? p.goneAt - p.terminalAt : undefined);

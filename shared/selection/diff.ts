import type { Decision, Kept } from './decision.js';

// The impact of a policy change (`kube-tidy plan --against`): two plans over the same pods,
// the one in force (before) and the proposed one (after), compared pod by pod. Pure: the
// callers decide both policies over one listing and hand in the decisions, limits applied.
// What a gate counts is "newly selected": pods the change would remove that today's policy
// leaves alone. A pod both select under another strategy is a change of reason, not new work.

/** One policy's plan for the diff: its decisions in its order, and the pods it selected but kept (why). */
export interface DiffSide {
  decisions: readonly Decision[];
  /** Only the entries of pods the other side decides are read; the first entry of a pod wins. */
  kept?: readonly Kept[];
}

/** What one policy does with a pod of the diff. */
export type SideView =
  | { status: 'selected'; profile: string; strategy: string; action: Decision['action']; reason: string }
  | { status: 'kept'; profile: string; strategy: string; reason: string }
  | { status: 'unselected' };

export interface PodChange {
  change: 'new' | 'released' | 'changed';
  namespace: string;
  name: string;
  uid: string;
  before: SideView;
  after: SideView;
}

/** Per namespace and strategy: selected before and after; new and released pods; changed: pods now here that another strategy selected before. */
export interface DiffCount {
  namespace: string;
  strategy: string;
  before: number;
  after: number;
  new: number;
  released: number;
  changed: number;
}

export type DiffTotals = Omit<DiffCount, 'namespace' | 'strategy'>;

export interface PolicyDiff {
  /** Newly selected pods in the new policy's order, then released ones in the old policy's, then changed ones in the new's. */
  changes: PodChange[];
  /** Sorted by namespace, then strategy. */
  counts: DiffCount[];
  totals: DiffTotals;
}

export function diffPlans(before: DiffSide, after: DiffSide): PolicyDiff {
  const was = byUid(before.decisions);
  const is = byUid(after.decisions);
  // Kept entries only matter for a pod the other side selects: looked up, never all held twice.
  const keptBefore = firstKept(before.kept, is);
  const keptAfter = firstKept(after.kept, was);
  const view = (d: Decision | undefined, k: Kept | undefined): SideView =>
    d
      ? { status: 'selected', profile: d.profile, strategy: d.strategy, action: d.action, reason: d.reason }
      : k
        ? { status: 'kept', profile: k.profile, strategy: k.strategy, reason: k.reason }
        : { status: 'unselected' };
  const change = (kind: PodChange['change'], d: Decision, b: SideView, a: SideView): PodChange => ({
    change: kind,
    namespace: d.namespace,
    name: d.name,
    uid: d.uid,
    before: b,
    after: a,
  });

  const added: PodChange[] = [];
  const moved: PodChange[] = [];
  const released: PodChange[] = [];
  const counts = new Map<string, DiffCount>();
  const row = (namespace: string, strategy: string): DiffCount => {
    const key = `${namespace}\0${strategy}`;
    let r = counts.get(key);
    if (!r) counts.set(key, (r = { namespace, strategy, before: 0, after: 0, new: 0, released: 0, changed: 0 }));
    return r;
  };
  for (const d of before.decisions) {
    row(d.namespace, d.strategy).before++;
    if (is.has(d.uid)) continue;
    row(d.namespace, d.strategy).released++;
    released.push(change('released', d, view(d, undefined), view(undefined, keptAfter.get(d.uid))));
  }
  for (const d of after.decisions) {
    const r = row(d.namespace, d.strategy);
    r.after++;
    const old = was.get(d.uid);
    if (!old) {
      r.new++;
      added.push(change('new', d, view(undefined, keptBefore.get(d.uid)), view(d, undefined)));
    } else if (old.strategy !== d.strategy) {
      r.changed++;
      moved.push(change('changed', d, view(old, undefined), view(d, undefined)));
    }
  }
  const sorted = [...counts.values()].sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.strategy, b.strategy));
  const totals: DiffTotals = { before: 0, after: 0, new: 0, released: 0, changed: 0 };
  for (const r of sorted) for (const k of Object.keys(totals) as (keyof DiffTotals)[]) totals[k] += r[k];
  return { changes: [...added, ...released, ...moved], counts: sorted, totals };
}

/** `--max-new`: at most this many newly selected pods, or this percentage of the pods seen. */
export type NewSelectionGate = { max: number } | { percent: number };

/** Whether the newly selected pods exceed the gate; at the threshold exactly is within it. */
export function exceedsGate(gate: NewSelectionGate, newlySelected: number, podsSeen: number): boolean {
  // Compared in whole numbers: 10% of 30 pods lets 3 through, never 3.0000000000000004.
  return 'max' in gate ? newlySelected > gate.max : newlySelected * 100 > gate.percent * podsSeen;
}

function byUid(decisions: readonly Decision[]): Map<string, Decision> {
  const m = new Map<string, Decision>();
  for (const d of decisions) if (!m.has(d.uid)) m.set(d.uid, d);
  return m;
}

function firstKept(kept: readonly Kept[] | undefined, wanted: ReadonlyMap<string, unknown>): Map<string, Kept> {
  const m = new Map<string, Kept>();
  for (const k of kept ?? []) if (wanted.has(k.uid) && !m.has(k.uid)) m.set(k.uid, k);
  return m;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

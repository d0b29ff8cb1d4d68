// Kubernetes Events as series, not one per pod (issue 45). Under a storm (a large Job failing,
// a node drained) the event path removes pods one at a time, each through its own request; an
// Event per pod would double the writes at the moment the API server is busiest. So removals
// are grouped per owner (the pod's controller; its namespace for a bare pod), reason and
// strategy, within a window that starts at the group's first removal:
// - the first removal of a window gets its own Event on the pod, at once (a lone removal reads
//   as it always did in `kubectl describe pod`);
// - the later ones are counted into one Event about the owner, an events.k8s.io/v1 series
//   (series.count, series.lastObservedTime) written at most once per interval, at the window's
//   end and when the process stops: Event writes per storm are bounded by groups x windows,
//   not by pods. The per-pod record stays in the CloudEvents and the metrics.
// The note of an events.k8s.io/v1 Event cannot change once written (the API server refuses an
// update of it), so it names the pods known when the series is first written, and the count
// lives in series.count, which kubectl shows as "(x37 over 40s)".
// Cleanup beyond pods' removals (a ttl rule's 1,000 ConfigMaps) are grouped the same way, per
// namespace, kind and rule (`kind`): one Event per object would be as unbounded (issue 47).
// Pure: the clock is the caller's `at`; what to write is returned as data.
import type { OwnerReference } from '../../model/objects.js';

export interface SeriesSettings {
  /** How long a group's window stays open after its first removal. */
  windowMs: number;
  /** The least time between two writes of one series (its first write included, after the pod's own Event). */
  intervalMs: number;
  /** How many folded pods the series' note names. */
  named: number;
}

/** One pod removed, as the writer saw it (or another object: `kind`). */
export interface Removal {
  namespace: string;
  /** The pod's name (the object's, for another kind). */
  pod: string;
  /** The removed object's kind when it is not a pod (cleanup beyond pods): its removals count apart from the pods' and from other kinds'. */
  kind?: string;
  /** Its controller (ownerReferences[controller=true]); none for a bare pod. */
  owner?: OwnerReference;
  /** The pod's own Event's reason and action ("Deleted"/"Delete"). */
  reason: string;
  action: string;
  /** What selected it (the note says why, and the note is one for the series). */
  strategy: string;
  at: number;
}

/** A series Event to create (first write) or update in place (series.count, series.lastObservedTime). */
export interface SeriesWrite {
  /** Stable for the series: the Event's name is derived from it. */
  id: string;
  create: boolean;
  namespace: string;
  /** The removed objects' kind when they are not pods. */
  kind?: string;
  /** The owner, or none: the Event is then about the namespace. */
  owner?: OwnerReference;
  reason: string;
  action: string;
  strategy: string;
  /** Removals in the window so far, the first (with its own Event) included: at least 2. */
  count: number;
  /** The pod with its own Event, and the first folded ones (up to `named`). */
  first: string;
  named: readonly string[];
  /** When the window opened, and the latest removal counted. */
  firstAt: number;
  lastAt: number;
}

interface Open {
  id: string;
  removal: Removal;
  firstAt: number;
  count: number;
  named: string[];
  lastAt: number;
  /** The count the API server was last told (1: only the pod's own Event), and when. */
  writtenCount: number;
  writtenAt: number;
  created: boolean;
}

/** The group a removal counts in: owner by uid (a Job recreated under its name is another), else the namespace. */
export function groupKey(r: Pick<Removal, 'namespace' | 'owner' | 'reason' | 'action' | 'strategy' | 'kind'>): string {
  const who = r.owner ? `${r.owner.kind}/${r.owner.uid}` : 'Namespace';
  // A pod's key as it always was; another kind's apart from it.
  return [r.namespace, who, r.reason, r.action, r.strategy, ...(r.kind === undefined ? [] : [r.kind])].join('\n');
}

export class EventSeries {
  private readonly open = new Map<string, Open>();
  /** Windows that ended, found by `observe` opening the next one, with removals not yet written. */
  private closed: Open[] = [];

  constructor(private readonly settings: SeriesSettings) {}

  /** `own`: the removal gets its own Event now; `folded`: it is counted in its group's series. */
  observe(r: Removal): 'own' | 'folded' {
    const key = groupKey(r);
    const s = this.open.get(key);
    if (!s || r.at >= s.firstAt + this.settings.windowMs) {
      // A window that ended with removals not yet written is written by `due` first; a caller
      // that observes without asking `due` still loses nothing: the old window is kept aside.
      if (s && s.count > s.writtenCount) this.closed.push(s);
      this.open.set(key, {
        id: `${key}\n${r.at}`,
        removal: r,
        firstAt: r.at,
        count: 1,
        named: [],
        lastAt: r.at,
        writtenCount: 1,
        writtenAt: r.at,
        created: false,
      });
      return 'own';
    }
    s.count++;
    s.lastAt = Math.max(s.lastAt, r.at);
    if (s.named.length < this.settings.named) s.named.push(r.pod);
    return 'folded';
  }

  /** What is to be written at `now`: series whose interval has passed, or whose window ended, with removals not yet told. Closes ended windows. */
  due(now: number): SeriesWrite[] {
    const out = this.closed.map((s) => this.write(s));
    this.closed = [];
    for (const [key, s] of this.open) {
      const ended = now >= s.firstAt + this.settings.windowMs;
      if (s.count > s.writtenCount && (ended || now >= s.writtenAt + this.settings.intervalMs)) out.push(this.write(s, now));
      if (ended) this.open.delete(key);
    }
    return out;
  }

  /** Every series with removals not yet written, whatever the interval: the process stops. Forgets every window. */
  drain(): SeriesWrite[] {
    const out = [...this.closed, ...this.open.values()].filter((s) => s.count > s.writtenCount).map((s) => this.write(s));
    this.closed = [];
    this.open.clear();
    return out;
  }

  /** When `due` next has something to do (a write or a window to close); undefined: nothing open. A scan of every open window. */
  nextDue(): number | undefined {
    if (this.closed.length) return Number.NEGATIVE_INFINITY;
    let next: number | undefined;
    for (const s of this.open.values()) next = Math.min(next ?? Number.POSITIVE_INFINITY, this.dueAt(s));
    return next;
  }

  /**
   * When `due` next has something to do for the group `r` counts in. `observe(r)` brings no
   * other group's time forward (a window it sets aside is due at once: -Infinity here), so the
   * earlier of this and the time `nextDue` said before is never later than `nextDue` now: a
   * timer armed so is never late, at worst early (it then finds nothing due and scans).
   */
  dueOf(r: Pick<Removal, 'namespace' | 'owner' | 'reason' | 'action' | 'strategy' | 'kind'>): number | undefined {
    if (this.closed.length) return Number.NEGATIVE_INFINITY;
    const s = this.open.get(groupKey(r));
    return s && this.dueAt(s);
  }

  private dueAt(s: Open): number {
    const end = s.firstAt + this.settings.windowMs;
    return s.count > s.writtenCount ? Math.min(end, s.writtenAt + this.settings.intervalMs) : end;
  }

  /** Groups with an open window (what the process holds in memory). */
  get size(): number {
    return this.open.size + this.closed.length;
  }

  /** The write of `s` as it stands, marked told: a write that then fails is not retried (Events are best effort). */
  private write(s: Open, now = s.lastAt): SeriesWrite {
    const r = s.removal;
    const w: SeriesWrite = {
      id: s.id,
      create: !s.created,
      namespace: r.namespace,
      ...(r.kind === undefined ? {} : { kind: r.kind }),
      ...(r.owner ? { owner: r.owner } : {}),
      reason: r.reason,
      action: r.action,
      strategy: r.strategy,
      count: s.count,
      first: r.pod,
      named: [...s.named],
      firstAt: s.firstAt,
      lastAt: s.lastAt,
    };
    s.created = true;
    s.writtenCount = s.count;
    s.writtenAt = now;
    return w;
  }
}

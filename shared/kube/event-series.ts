// The process's Event series (core/event-series.ts) and their writes: the writer asks it once a
// pod is removed outside a pass (a pass has its own budget, cleanup/io/event-budget.ts) whether
// the pod gets its own Event; the rest are counted, and one events.k8s.io/v1 Event per series is
// created, then updated in place (merge patch of series.count and series.lastObservedTime),
// from a timer at most once per interval, at the window's end, and on drain when the process
// stops. In memory, per process: two instances (Knative's scale-out, a standalone replica after
// another) each write their own series, named with their instance, and each counts its own.
// Best effort, as every Event: a write that fails is counted and logged, never retried.
import { PatchStrategy, setHeaderOptions, V1MicroTime, type EventsV1Api, type EventsV1Event } from '@kubernetes/client-node';
import { setLongTimeout, type LongTimeout } from '../config/long-timeout.js';
import type { Logger } from '../log.js';
import type { OwnerReference } from '../model/objects.js';
import { EventSeries, type SeriesSettings, type SeriesWrite } from './core/event-series.js';
import { classifyKubeError } from './errors.js';
import { eventBody, namespaceAbout, type About } from './pod-event.js';

export type SeriesEventWriter = Pick<EventsV1Api, 'createNamespacedEvent' | 'patchNamespacedEvent'>;

export interface PodEventSeriesOptions extends SeriesSettings {
  events: SeriesEventWriter;
  now: () => number;
  /** This process's name (HOSTNAME): the Events' reportingInstance, and part of each series' name. */
  instance: string;
  log?: Pick<Logger, 'warn'>;
}

/** What the series wrote: for the log at drain and for tests. */
export interface SeriesStats {
  /** Removals that got their own Event, and those counted into a series instead. */
  own: number;
  folded: number;
  created: number;
  updated: number;
  failed: number;
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** A pod removed, as the writer knows it: its own Event's reason and action, and what selected it (or another object: `kind`). */
export interface RemovedPod {
  namespace: string;
  name: string;
  /** The object's kind when it is not a pod (cleanup beyond pods: a ttl rule's ConfigMap). */
  kind?: string;
  owner?: OwnerReference;
  reason: string;
  action: string;
  strategy: string;
}

export class PodEventSeries {
  readonly stats: SeriesStats = { own: 0, folded: 0, created: 0, updated: 0, failed: 0 };
  private readonly series: EventSeries;
  private timer: LongTimeout | undefined;
  private armedAt: number | undefined;
  /** One write at a time, in order: an update never overtakes its series' create. */
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: PodEventSeriesOptions) {
    this.series = new EventSeries(o);
  }

  /** `true`: the pod gets its own Event now (the writer records it); `false`: it is counted in its series. */
  ownEvent(pod: RemovedPod): boolean {
    // After the drain, nothing would write a series: every removal gets its own Event again.
    if (this.stopped) return true;
    const answer = this.series.observe({ ...pod, pod: pod.name, at: this.o.now() });
    if (answer === 'own') this.stats.own++;
    else this.stats.folded++;
    // Only this pod's group changed: its time, not a scan of every open window (a storm over many owners).
    this.arm(this.series.dueOf(pod));
    return answer === 'own';
  }

  /** Writes what is due now; the timer calls it, a test may too. */
  flushDue(): Promise<void> {
    return this.send(this.series.due(this.o.now()));
  }

  /**
   * The process stops: every series with removals not yet written is written now, within
   * `deadlineMs` (what is left after it is given up, and said). Idempotent; later removals
   * get their own Event.
   */
  async drain(deadlineMs: number): Promise<{ drained: boolean; stats: SeriesStats }> {
    this.stopped = true;
    this.timer?.clear();
    this.timer = undefined;
    const done = this.send(this.series.drain()).then(() => true);
    let cut: LongTimeout | undefined;
    const late = new Promise<boolean>((resolve) => (cut = setLongTimeout(() => resolve(false), deadlineMs, { unref: true })));
    const drained = await Promise.race([done, late]);
    cut?.clear();
    if (!drained) this.o.log?.warn({ deadlineMs, stats: this.stats }, 'Event series: the stop deadline cut off series writes');
    return { drained, stats: { ...this.stats } };
  }

  /**
   * One timer for the process, at the next moment a series is due (`next`: a scan's, or after a
   * removal its group's, core/event-series.ts dueOf); unref'd: it never holds the process up.
   */
  private arm(next = this.series.nextDue()): void {
    if (next === undefined || this.stopped) return;
    if (this.timer && this.armedAt !== undefined && this.armedAt <= next) return;
    this.timer?.clear();
    this.armedAt = next;
    this.timer = setLongTimeout(
      () => {
        this.timer = undefined;
        this.armedAt = undefined;
        void this.flushDue().then(() => this.arm());
      },
      Math.max(0, next - this.o.now()),
      { unref: true },
    );
  }

  private send(writes: readonly SeriesWrite[]): Promise<void> {
    if (!writes.length) return this.writing;
    this.writing = this.writing.then(async () => {
      for (const w of writes) await this.write(w);
    });
    return this.writing;
  }

  private async write(w: SeriesWrite): Promise<void> {
    const body = seriesBody(w, this.o.instance);
    const { name, namespace } = body.metadata as { name: string; namespace: string };
    try {
      if (!w.create) {
        try {
          await this.o.events.patchNamespacedEvent({ name, namespace, body: { series: body.series } }, mergePatch);
          this.stats.updated++;
          return;
        } catch (e) {
          // Its create failed, or the Event expired (the API server's event TTL): create it whole.
          if (classifyKubeError(e).kind !== 'not-found') throw e;
        }
      }
      await this.o.events.createNamespacedEvent({ namespace, body });
      this.stats.created++;
    } catch (e) {
      const failure = classifyKubeError(e);
      // A create sent again after a lost answer: the Event exists; its count is updated next time.
      if (failure.kind === 'conflict' && failure.reason === 'AlreadyExists') return;
      this.stats.failed++;
      this.o.log?.warn({ event: `${namespace}/${name}`, count: w.count, error: failure }, 'Event series: a write failed (best effort: not retried)');
    }
  }
}

/** The series' reason: the pods' own, in the plural ("Deleted" -> "PodsDeleted"); another kind's "ObjectsDeleted" (its note names the kind). */
export const seriesReason = (podReason: string, kind?: string): string => `${kind === undefined ? 'Pods' : 'Objects'}${podReason}`;

/**
 * The series Event of `w`: about the owner (a Job, a ReplicaSet), or the namespace for bare pods,
 * named for the series and this instance. Its note is fixed when it is created (the API server
 * refuses a change of it): it names the first pods; the count is series.count.
 */
export function seriesBody(w: SeriesWrite, instance: string): EventsV1Event {
  const about: About = w.owner
    ? { apiVersion: w.owner.apiVersion ?? 'v1', kind: w.owner.kind, namespace: w.namespace, name: w.owner.name, uid: w.owner.uid }
    : namespaceAbout(w.namespace);
  const of = w.owner ? `of ${w.owner.kind} ${w.owner.name}` : w.kind === undefined ? 'without an owner in this namespace' : 'in this namespace';
  const named = [`${w.first} (with an Event of its own)`, ...w.named].join(', ');
  const verb = w.action === 'Evict' ? 'evicted' : w.action === 'Delete' ? 'deleted' : `removed (${w.action})`;
  const what = w.kind === undefined ? 'pods' : `objects of kind ${w.kind}`;
  const each = w.kind === undefined ? 'pod' : 'object';
  const note =
    `kube-tidy ${verb} ${what} ${of} as ${w.strategy} selected them: ${named}${w.count > 1 + w.named.length ? ' and more' : ''}. ` +
    `This Event's count is how many in its window; every ${each} is in kube-tidy's CloudEvents and metrics.`;
  const body = eventBody(
    about,
    { reason: seriesReason(w.reason, w.kind), action: w.action, type: 'Normal', note, once: `series\n${instance}\n${w.id}` },
    { instance },
    new Date(w.firstAt),
  );
  return { ...body, series: { count: w.count, lastObservedTime: new V1MicroTime(w.lastAt) } };
}

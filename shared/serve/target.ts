// A function target, declared as data: what it accepts, what it needs, how its family is
// wired, and the handler. One wrapper (resolve.ts, with its HTTP adapters in http/) does everything else the same way for
// every target: method, sender authentication, decoding, refusals, the common answer fields
// and the status code. A target file is then only "given this input and these parts, do
// this" (functions/*.ts).
import type { ObjectEvent, ReferenceEvent, SweepShard, TickEvent, Verb } from '../cloudevents/index.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Answer } from '../model/answer.js';

export type { Answer } from '../model/answer.js';

/** What reached the handler, already decoded and checked against `accepts`. */
export type Input =
  /**
   * `sender`: who sent an event that came as a request (the sender check's subject, `anonymous`
   * with SENDER_AUTH=none); absent for one a host hands over itself (standalone's watch).
   * podTerminated takes a named sender's whole pod as the read (TRUSTED_POD_SENDERS).
   */
  | { type: 'object'; event: ObjectEvent; namespace: string; name: string; sender?: string }
  | { type: 'reference'; event: ReferenceEvent; namespace: string; name: string }
  /**
   * `sender`: who sent a tick that came as a request (the sender check's subject, `anonymous`
   * with SENDER_AUTH=none); absent for a tick of the process's own schedule (standalone).
   */
  | { type: 'tick'; event?: TickEvent; sender?: string }
  | { type: 'shard'; shard: SweepShard }
  | { type: 'body'; body: unknown; headers: Record<string, string | string[] | undefined> };

export interface Accepts<Parts = unknown> {
  /** Object events (any verb, Resource or Reference mode) of these kinds; namespaced unless `clusterScoped` says a kind may not be. */
  kinds?: readonly string[] | ((parts: Parts) => readonly string[]);
  /**
   * Kinds whose events may come without a namespace (a ttl rule's Namespace or ClusterRole): the
   * handler gets namespace '' and finds the kind's scope itself (by discovery); the others' are refused (400).
   */
  clusterScoped?: (parts: Parts) => readonly string[];
  /**
   * Kinds the bridge's table does not know, found by discovery (their plural and scope, never
   * guessed): a host that watches (standalone) watches these too and routes them here.
   */
  watches?: (parts: Parts) => Promise<readonly WatchedKind[]>;
  /**
   * The kinds a host that watches (standalone) routes here, when fewer than `kinds`: a watch
   * costs a stream per kind, and a kind the cluster does not serve fails it, while an event a
   * bridge sends of any of `kinds` is still well-formed input (answered, not refused).
   */
  routes?: (parts: Parts) => readonly string[];
  /**
   * The verbs of those events that can change the answer (default: all). A host that routes
   * (standalone's watch) sends only these, as the declaration's Triggers do; the resolver still
   * answers any verb (nothing to do), since another bridge may send one.
   */
  verbs?: readonly Verb[];
  /** Schedule ticks: a PingSource CloudEvent. */
  ticks?: boolean;
  /** Sweep shards (cloudevents/shard.ts): slices of a sweep another instance planned. */
  shards?: boolean;
  /** A POST that is not a CloudEvent: a tick (Cloud Scheduler, cron + curl) or a JSON body (a person). */
  plain?: 'tick' | 'body';
  /** Said in every refusal: where the input belongs instead. */
  hint: string;
}

/** A kind a host can watch: its Kind, apiVersion and plural as discovery serves them. */
export interface WatchedKind {
  kind: string;
  apiVersion: string;
  resource: string;
}

export interface Needs {
  /** A DeschedulerPolicy (POLICY_FILE or POLICY_CONFIGMAP) is required at start. */
  policy: boolean;
  /**
   * When the Kubernetes client is loaded: at start, or on first need (a nothing-to-do pod
   * event then answers without loading it; loading it is most of a cold start).
   */
  cluster: 'at-start' | 'on-demand';
}

export interface Call {
  /** When this request must be answered by (ms since the epoch). */
  deadline: number;
  /** Whether the answer said dryRun (a handler may plan for its own reasons, e.g. invoke). */
  dryRun: boolean;
}

/**
 * `A`: the answer this target gives, so its `observe` reads its own fields without casts (the
 * wrapper, which serves every target, sees only `Answer`).
 */
export interface TargetSpec<Parts = unknown, A extends Answer = Answer> {
  name: string;
  accepts: Accepts<Parts>;
  needs: Needs;
  /**
   * The family's parts for this process (its configuration read and checked, its clients):
   * built once at start, so a bad setting stops the process before it serves.
   */
  setup(rt: Runtime): Parts | Promise<Parts>;
  /** Everything it needs is in `parts` (the family's narrow handle): a handler never sees the process. */
  handle(input: Input, parts: Parts, call: Call): Promise<A>;
  /**
   * What the family's answer says in metrics, recorded after each answer into `metrics` (the
   * process's recorder, metrics/recorder.ts); the wrapper records requests and their durations
   * for every target itself.
   */
  observe?(answer: A, metrics: MetricsRecorder): void;
}

/** Declares a target; only types are checked here (the registry is functions/index.ts). */
export const defineTarget = <Parts, A extends Answer = Answer>(spec: TargetSpec<Parts, A>): TargetSpec<Parts, A> => spec;

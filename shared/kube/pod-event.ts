// A Kubernetes Event on the pod a strategy acted on, so `kubectl describe pod` and
// `kubectl events` say who removed it and why (the descheduler does the same). Best effort:
// the cleanup has already happened, so a failure to record is returned, never thrown.
import { V1MicroTime, type EventsV1Api, type EventsV1Event } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { classifyKubeError, type KubeFailure } from './errors.js';
import { REPORTING_CONTROLLER } from '../model/keys.js';
import { dns1123SubdomainProblem } from '../model/names.js';

export { REPORTING_CONTROLLER };

export interface PodEvent {
  /** UpperCamelCase, what happened: "Deleted", "Evicted", "EvictionBlocked". */
  reason: string;
  /** What a person reads; the API server rejects more than 1 KiB. */
  note: string;
  type: 'Normal' | 'Warning';
  /** What kube-tidy did or tried: "Delete", "Evict". */
  action: string;
  /** What makes this action distinct for the pod; default `reason`. One Event per value. */
  once?: string;
}

export interface RecordOptions {
  /** A dry run changed nothing, so there is nothing to tell the pod's owner. */
  dryRun?: boolean;
  /** This process's name as its host knows it (the pod's HOSTNAME); the machine's otherwise. */
  instance?: string;
}

export type RecordResult = { recorded: true; name: string } | { recorded: false; skipped?: 'dryRun'; error?: KubeFailure };

export type EventWriter = Pick<EventsV1Api, 'createNamespacedEvent'>;

// Validation limits of events.k8s.io/v1 (reason/action 128, note 1024 bytes).
function clip(text: string, bytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= bytes) return text;
  // Cut on a character boundary: decoding a cut multi-byte sequence yields U+FFFD.
  return (
    buf
      .subarray(0, bytes - 3)
      .toString('utf8')
      .replace(/\uFFFD$/, '') + '...'
  );
}

// One Event per action, by name: the name is derived from the pod's uid and what was done,
// so two deliveries of the same event that both reach this point (a retry racing the first
// attempt) create one Event, and the second create answers AlreadyExists. `once` says what
// makes an action distinct ("Deleted", "EvacuationSucceeded:3"). Not generateName: the API
// server validates the prefix itself as a DNS subdomain, and "<pod>." ends in a dot.
// What an Event is about is named as stored, and a stored name is a valid prefix, except an
// owner reference's (an Event series about a pod's controller): the API server checks only
// that it is not empty, and whoever creates the pod writes it. A name that would not be a
// valid Event name (a 422 on create, a patch's URL) is left out: the hash alone names it.
function eventName(about: { name: string; uid: string }, once: string): string {
  const suffix = `kt-${createHash('sha256').update(`${about.uid}\n${once}`).digest('hex').slice(0, 16)}`;
  const name = `${about.name.slice(0, 253 - 1 - suffix.length).replace(/[-.]+$/, '')}.${suffix}`;
  return dns1123SubdomainProblem(name) === undefined ? name : suffix;
}

function instance(given: string | undefined): string {
  return clip(given || hostname() || 'unknown', 128);
}

export async function recordPodEvent(
  events: EventWriter,
  pod: { namespace: string; name: string; uid: string },
  event: PodEvent,
  opts: RecordOptions = {},
): Promise<RecordResult> {
  return recordEventAbout(events, { kind: 'Pod', ...pod }, event, opts);
}

/**
 * An Event about a Namespace, in that namespace: what a pass did to more pods than get an
 * Event each (cleanup/io/event-budget.ts). `once` names the pass, so one Event per pass.
 */
export async function recordNamespaceEvent(
  events: EventWriter,
  namespace: string,
  event: PodEvent & { once: string },
  opts: RecordOptions = {},
): Promise<RecordResult> {
  return recordEventAbout(events, namespaceAbout(namespace), event, opts);
}

/**
 * A namespace as an Event is about it (a pass's summary, the series of its bare pods). Its uid
 * is not at hand (reading it would cost a request per namespace): the name is its identity for
 * the Event's name, and `regarding` without a uid is valid.
 */
export const namespaceAbout = (namespace: string): About => ({ kind: 'Namespace', namespace, name: namespace, uid: `namespace/${namespace}` });

/** What an Event is about: a pod, a namespace, or an object cleanup beyond pods removed (a Job, a claim, a Workload's owner). */
export interface Regarding {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/** An Event about one object kube-tidy removed (issue 38: one per object), on the object itself. */
export async function recordObjectEvent(events: EventWriter, about: Regarding, event: PodEvent, opts: RecordOptions = {}): Promise<RecordResult> {
  return recordEventAbout(events, about, event, opts);
}

/** What an Event is about, as pod-event.ts and the series (event-series.ts) name it: a Regarding whose apiVersion defaults to v1. */
export type About = Omit<Regarding, 'apiVersion'> & Partial<Pick<Regarding, 'apiVersion'>>;

/**
 * The body of an Event about `about`, named once per `event.once` (event-series.ts adds its
 * `series`). `eventTime`: when it was first observed; now unless given.
 */
export function eventBody(about: About, event: PodEvent, opts: RecordOptions = {}, eventTime: Date = new Date()): EventsV1Event {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: eventName(about, event.once ?? event.reason), namespace: eventNamespace(about) },
    // MicroTime: client-node's subclass serialises with the microseconds the server requires.
    eventTime: new V1MicroTime(eventTime.getTime()),
    reportingController: REPORTING_CONTROLLER,
    reportingInstance: instance(opts.instance),
    action: clip(event.action, 128),
    reason: clip(event.reason, 128),
    note: clip(event.note, 1024),
    type: event.type,
    // The API server accepts an Event outside default and kube-system only when its regarding
    // object names the Event's namespace: a Namespace's Event names itself (else a 422, and no Event).
    // A cluster-scoped object (namespace ''; a removed Namespace) has its Event in default, as
    // the kubelet's Events about a Node are, its regarding naming no namespace.
    regarding:
      about.kind === 'Namespace' && about.namespace !== ''
        ? { apiVersion: 'v1', kind: 'Namespace', namespace: about.namespace, name: about.name }
        : {
            apiVersion: about.apiVersion ?? 'v1',
            kind: about.kind,
            ...(about.namespace ? { namespace: about.namespace } : {}),
            name: about.name,
            uid: about.uid,
          },
  };
}

/** Where an Event about `about` is written: its namespace, or default for a cluster-scoped object. */
const eventNamespace = (about: Pick<About, 'namespace'>): string => about.namespace || 'default';

async function recordEventAbout(events: EventWriter, about: About, event: PodEvent, opts: RecordOptions = {}): Promise<RecordResult> {
  if (opts.dryRun) return { recorded: false, skipped: 'dryRun' };
  const body = eventBody(about, event, opts);
  try {
    const created = await events.createNamespacedEvent({ namespace: eventNamespace(about), body });
    return { recorded: true, name: created.metadata?.name ?? '' };
  } catch (error) {
    const failure = classifyKubeError(error);
    // Another delivery of the same action recorded it first: it is recorded, once.
    if (failure.kind === 'conflict' && failure.reason === 'AlreadyExists') return { recorded: true, name: body.metadata?.name ?? '' };
    return { recorded: false, error: failure };
  }
}

// One pod, one pass: read what is stored on the pod and its migration, ask the machine for the
// next step, carry it out, repeat until the step needs time to pass. Every write is
// conditional or idempotent, so a crash anywhere leaves a state the next pass continues from.
// Every write goes through the ClusterWriter: in a dry run nothing is stored, so the pass
// carries what it would have written forward itself and answers what it would do.
import type { CoreV1Api } from '@kubernetes/client-node';
import { storedPodId } from '../../kube/from-client.js';
import { getPod } from '../../kube/get.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Logger } from '../../log.js';
import type { Stored } from '../../model/identity.js';
import type { Pod } from '../../model/objects.js';
import { ANNOTATIONS, readState, writeState } from '../core/annotations.js';
import { isDirect, next, type MigrationView, type Observation, type Outcome, type PodView, type Step } from '../core/machine.js';
import { podView, withAnnotations } from '../core/pod-view.js';
import type { EvacuationConfig } from '../config.js';
import { evictionRequestView, requesterName } from '../core/eviction-request.js';
import { deleteEvictionRequest, evictionFor, getEvictionRequest, requestEviction, withdrawEvictionRequest, type LifecycleReader } from './eviction-request.js';
import { createMigration, deleteMigration, evacuationMark, findMigration, getMigration, type KubeVirtReader } from './kubevirt.js';
import type { Ledger } from './ledger.js';

export interface EvacuationDeps {
  /** Reads: pods, the ledger. */
  core: Pick<CoreV1Api, 'readNamespacedPod' | 'listNamespacedPod' | 'listPodForAllNamespaces' | 'readNamespacedConfigMap'>;
  /** Reads of KubeVirt objects, and of lifecycle.k8s.io's. */
  custom: KubeVirtReader & LifecycleReader;
  /** Every write: annotations, evictions, migrations, the ledger, Events. */
  writer: ClusterWriter;
  ledger: Ledger;
  config: EvacuationConfig;
  /** Set when lifecycle.k8s.io is served (and not turned off): new attempts ask through an EvictionRequest. */
  evictionRequests?: { requester: string };
  now(): number;
  log: Logger;
}

export type PassOutcome = 'nothing-to-do' | 'waiting' | 'queued' | 'started' | 'blocked' | 'backoff' | Lowercase<Outcome>;

export interface PassResult {
  outcome: PassOutcome;
  pod: string;
  why: string;
  attempt?: number;
  migration?: string;
  /** Nothing was written: `why` says what a real pass would have done. */
  dryRun?: true;
}

// Enough rounds for start -> record -> end in one pass; a 409 costs one round.
const ROUNDS = 6;
const STARTED = /Eviction triggered evacuation|Evacuation in progress/;

async function observe(d: EvacuationDeps, namespace: string, view: PodView): Promise<MigrationView | undefined> {
  const run = readState(view.annotations);
  if (run.state === 'Started' && run.evictionRequest) {
    const er = await getEvictionRequest(d.custom, namespace, run.evictionRequest);
    return er && evictionRequestView(er, await evictionFor(d.custom, namespace, view.uid));
  }
  if (run.state !== 'Started' || !view.vmi) return undefined;
  if (run.migration) {
    const m = await getMigration(d.custom, namespace, run.migration);
    return m && { name: run.migration, phase: m.status?.phase ?? '', recorded: true };
  }
  if (isDirect(view, d.config.settings)) return undefined;
  const m = await findMigration(d.custom, namespace, view.vmi, run.startedAt);
  return m && { name: m.metadata.name, phase: m.status?.phase ?? '', recorded: false };
}

/** Start (or repeat the start of) the current attempt. Both ways are idempotent. */
async function drive(d: EvacuationDeps, pod: Stored<Pod>, view: PodView): Promise<{ outcome: PassOutcome; why: string }> {
  const namespace = pod.metadata.namespace!;
  const run = readState(view.annotations);
  if (run.state === 'Started' && run.evictionRequest) {
    // The attempt keeps the path it started on, whatever discovery says now.
    const requester = d.evictionRequests?.requester ?? requesterName('evacuation');
    const r = await requestEviction(d, { namespace, name: run.evictionRequest, pod: { name: pod.metadata.name!, uid: view.uid }, requester });
    return {
      outcome: 'started',
      why: `EvictionRequest ${run.evictionRequest} (requester ${requester}) ${r === 'created' ? 'created' : r === 'renewed' ? 'asked again' : 'already there'}`,
    };
  }
  if (run.state === 'Started' && run.migration && view.vmi && isDirect(view, d.config.settings)) {
    const r = await createMigration(d.writer, namespace, run.migration, view.vmi, { 'evacuation.kube-tidy.dev/pod-uid': view.uid });
    return { outcome: 'started', why: `migration ${run.migration} ${r === 'created' ? 'created' : 'already there'}` };
  }
  const r = await d.writer.evictPodForMigration(storedPodId(pod));
  if (r.outcome === 'evicted')
    return { outcome: 'started', why: d.writer.dryRun ? 'evicted through the Eviction API (admitted in the dry run)' : 'evicted: the pod is terminating' };
  if (r.outcome === 'blocked' && STARTED.test(r.message ?? '')) return { outcome: 'started', why: r.message ?? 'evacuation started' };
  if (r.outcome === 'blocked') return { outcome: 'blocked', why: `eviction refused, retried until the deadline: ${r.message}` };
  return { outcome: 'waiting', why: `the pod is ${r.outcome}` };
}

/**
 * Why an attempt that did not succeed may not be over for KubeVirt: after the Eviction API
 * started it, KubeVirt's own mark on the VMI keeps its evacuation going. Said, not hidden.
 */
async function kubevirtStillEvacuating(d: EvacuationDeps, namespace: string, view: PodView | undefined, outcome: Outcome): Promise<string | undefined> {
  if (outcome === 'Succeeded' || !view?.vmi || isDirect(view, d.config.settings)) return undefined;
  if (readState(view.annotations).state === 'Started' && view.annotations[ANNOTATIONS.evictionRequest]) return undefined; // the responders evicted, not kube-tidy
  try {
    const node = await evacuationMark(d.custom, namespace, view.vmi);
    return (
      node &&
      `KubeVirt still marks VMI ${view.vmi} for evacuation from ${node} and keeps creating migrations until that is cancelled (virtctl evacuate-cancel vmi ${view.vmi}, KubeVirt 1.7+)`
    );
  } catch (e) {
    d.log.warn({ vmi: `${namespace}/${view.vmi}`, err: (e as Error).message }, 'could not read the VMI to see whether KubeVirt still evacuates it');
    return `whether KubeVirt still evacuates VMI ${view.vmi} is unknown: ${(e as Error).message}`;
  }
}

/** The end of an evacuation; answers the reason as written, or undefined when the pod changed meanwhile. */
async function end(
  d: EvacuationDeps,
  pod: Stored<Pod> | undefined,
  ref: { namespace: string; name: string },
  step: Extract<Step, { do: 'end' }>,
  m: MigrationView | undefined,
): Promise<string | undefined> {
  const view = pod && podView(pod);
  const request = view && view.annotations[ANNOTATIONS.evictionRequest];
  if (request) {
    // Done: the record is not needed (deleting also withdraws). Otherwise withdrawn, not
    // deleted, so the Eviction's requesters still show who asked and gave up.
    if (step.outcome === 'Succeeded') await deleteEvictionRequest(d.writer, ref.namespace, request);
    else await withdrawEvictionRequest(d.writer, ref.namespace, request);
  } else if (step.abort && m) await deleteMigration(d.writer, ref.namespace, m.name);
  const still = await kubevirtStillEvacuating(d, ref.namespace, view, step.outcome);
  // An evacuation that fell back says so in its result too.
  const run = view && readState(view.annotations);
  const fallback = run && run.state !== 'Idle' ? run.fallback : undefined;
  const why = [step.why, fallback, still].filter(Boolean).join('; ');
  if (pod && step.write) {
    const at = new Date(d.now()).toISOString();
    const w = await d.writer.annotatePod(storedPodId(pod), {
      ...writeState({ state: 'Idle' }, d.config.holder),
      [ANNOTATIONS.request]: null,
      [ANNOTATIONS.result]: `${step.outcome} at ${at}: ${why}`,
    });
    if (w.outcome === 'conflict') return undefined;
  }
  const key = `${ref.namespace}/${ref.name}`;
  await d.ledger.release((s) => s.pod === key || s.uid === pod?.metadata.uid);
  if (pod && step.write) {
    const type = (step.outcome === 'Succeeded' || step.outcome === 'Cancelled') && !still ? 'Normal' : 'Warning';
    await d.writer.recordEvent(
      { namespace: ref.namespace, name: ref.name, uid: pod.metadata.uid! },
      { reason: `Evacuation${step.outcome}`, action: 'Evacuate', type, note: why },
    );
  }
  return why;
}

/** What a dry-run answer says instead: the write that would have been made, before the reason. */
const WOULD: Partial<Record<PassOutcome, string>> = {
  started: 'start the attempt',
  backoff: 'back off',
  succeeded: 'end it as Succeeded',
  failed: 'end it as Failed',
  timedout: 'end it as TimedOut',
  cancelled: 'end it as Cancelled',
  blocked: 'start the attempt, but',
};

function said(d: EvacuationDeps, r: PassResult): PassResult {
  if (!d.writer.dryRun) return r;
  const would = WOULD[r.outcome];
  return { ...r, dryRun: true, why: would ? `dry run, nothing written: would ${would}: ${r.why}` : `dry run: ${r.why}` };
}

/** Carry the pod's evacuation as far as it goes now. `initial`: a copy just listed (saves a GET). */
export async function evacuate(
  d: EvacuationDeps,
  ref: { namespace: string; name: string },
  opts: { initial?: Stored<Pod>; strategyRequest?: string } = {},
): Promise<PassResult> {
  const key = `${ref.namespace}/${ref.name}`;
  if (d.writer.options.protectedNamespaces.includes(ref.namespace))
    return { outcome: 'nothing-to-do', pod: key, why: `namespace ${ref.namespace} is protected` };
  let pod = opts.initial;
  // A dry run's own write, carried to the next round instead of re-reading (nothing was stored).
  let carried: Stored<Pod> | undefined;
  const last: PassResult = { outcome: 'waiting', pod: key, why: 'contended: another instance keeps changing the pod' };
  for (let round = 0; round < ROUNDS; round++) {
    if (carried) [pod, carried] = [carried, undefined];
    else if (round > 0 || !pod) pod = await getPod(d.core, ref);
    const view = pod && podView(pod);
    const migration = view && (await observe(d, ref.namespace, view));
    const o: Observation = {
      now: d.now(),
      ...(d.evictionRequests ? { evictionRequests: true } : {}),
      ...(view ? { pod: view } : {}),
      ...(migration ? { migration } : {}),
      ...(opts.strategyRequest ? { strategyRequest: opts.strategyRequest } : {}),
    };
    const step = next(o, d.config.settings);
    const run = view ? readState(view.annotations) : undefined;
    const info = { ...(run && run.state !== 'Idle' ? { attempt: run.attempt } : {}), ...(migration ? { migration: migration.name } : {}) };
    d.log.debug({ pod: key, step }, 'evacuation step');
    switch (step.do) {
      case 'none':
        return said(d, { outcome: 'nothing-to-do', pod: key, why: step.why });
      case 'wait':
        return said(d, { outcome: 'waiting', pod: key, why: step.why, ...info });
      case 'start': {
        const admitted = await d.ledger.acquire({ uid: view!.uid, pod: key, node: view!.node ?? '', at: o.now }, d.config.limits);
        if (!admitted.ok) return said(d, { outcome: 'queued', pod: key, why: admitted.why });
        const request: Record<string, string> = view!.annotations[ANNOTATIONS.request] ? {} : { [ANNOTATIONS.request]: step.requestedBy };
        const change = { ...writeState(step.next, d.config.holder), ...request };
        const w = await d.writer.annotatePod(storedPodId(pod!), change);
        if (w.outcome !== 'written') continue; // another instance moved first: see what it did
        // What was just written, without reading it back.
        const started = await drive(d, pod!, podView(withAnnotations(pod!, change)));
        return said(d, { ...started, pod: key, attempt: step.next.attempt, ...(step.next.migration ? { migration: step.next.migration } : {}) });
      }
      case 'drive':
        return said(d, { ...(await drive(d, pod!, view!)), pod: key, ...info });
      case 'fallback': {
        // Withdrawn before the state moves on: a crash between the two leaves the attempt as it
        // was, and the next pass falls back again (withdrawing twice is harmless). The state
        // write is tied to the pod as read, so of two instances only one falls back and drives.
        await withdrawEvictionRequest(d.writer, ref.namespace, step.withdraw);
        const change = writeState(step.next, d.config.holder);
        const w = await d.writer.annotatePod(storedPodId(pod!), change);
        if (w.outcome !== 'written') continue;
        const driven = await drive(d, pod!, podView(withAnnotations(pod!, change)));
        return said(d, {
          ...driven,
          why: `${step.why}; ${driven.why}`,
          pod: key,
          attempt: step.next.attempt,
          ...(step.next.migration ? { migration: step.next.migration } : {}),
        });
      }
      case 'record': {
        const change = { [ANNOTATIONS.migration]: step.migration };
        const w = await d.writer.annotatePod(storedPodId(pod!), change);
        if (w.outcome === 'written' && d.writer.dryRun) carried = withAnnotations(pod!, change);
        continue;
      }
      case 'backoff': {
        if ((await d.writer.annotatePod(storedPodId(pod!), writeState(step.next, d.config.holder))).outcome !== 'written') continue;
        // The failed attempt's EvictionRequest goes (deleting withdraws); the next attempt asks anew.
        if (run?.state === 'Started' && run.evictionRequest) await deleteEvictionRequest(d.writer, ref.namespace, run.evictionRequest);
        await d.ledger.release((s) => s.uid === view!.uid);
        return said(d, { outcome: 'backoff', pod: key, why: step.why, ...info });
      }
      case 'end': {
        const why = await end(d, pod, ref, step, migration);
        if (why === undefined) continue;
        return said(d, { outcome: step.outcome.toLowerCase() as PassOutcome, pod: key, why, ...info });
      }
    }
  }
  return said(d, last);
}

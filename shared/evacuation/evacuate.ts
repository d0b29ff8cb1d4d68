// One pod, one pass: read what is stored on the pod and its migration, ask the machine for the
// next step, carry it out, repeat until the step needs time to pass. Every write is
// conditional or idempotent, so a crash anywhere leaves a state the next pass continues from.
import type { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { evictPod, getPod, recordPodEvent, type EventWriter } from '../kube/index.js';
import type { Logger } from '../log.js';
import type { Pod } from '../model/objects.js';
import { A, readState, writeState } from './annotations.js';
import type { EvacuationConfig } from './config.js';
import { createMigration, deleteMigration, evacuationMark, findMigration, getMigration } from './kubevirt.js';
import { acquire, release } from './ledger.js';
import { isDirect, next, type MigrationView, type Observation, type Outcome, type PodView, type Step } from './machine.js';
import { patchAnnotations, podView, type PodCore } from './pod-io.js';

export interface EvacuationDeps {
  core: PodCore & Pick<CoreV1Api, 'readNamespacedConfigMap' | 'createNamespacedConfigMap' | 'replaceNamespacedConfigMap'>;
  custom: CustomObjectsApi;
  events?: EventWriter;
  config: EvacuationConfig;
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
}

// Enough rounds for start -> record -> end in one pass; a 409 costs one round.
const ROUNDS = 6;
const STARTED = /Eviction triggered evacuation|Evacuation in progress/;

async function observe(d: EvacuationDeps, namespace: string, view: PodView): Promise<MigrationView | undefined> {
  const run = readState(view.annotations);
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
async function drive(d: EvacuationDeps, pod: Pod, view: PodView): Promise<{ outcome: PassOutcome; why: string }> {
  const namespace = pod.metadata.namespace!;
  const run = readState(view.annotations);
  if (run.state === 'Started' && run.migration && view.vmi && isDirect(view, d.config.settings)) {
    const r = await createMigration(d.custom, namespace, run.migration, view.vmi, { 'evacuation.kube-tidy.dev/pod-uid': view.uid });
    return { outcome: 'started', why: `migration ${run.migration} ${r === 'created' ? 'created' : 'already there'}` };
  }
  const r = await evictPod(d.core, { namespace, name: pod.metadata.name!, uid: view.uid });
  if (r.outcome === 'evicted') return { outcome: 'started', why: 'evicted: the pod is terminating' };
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
  try {
    const node = await evacuationMark(d.custom, namespace, view.vmi);
    return node && `KubeVirt still marks VMI ${view.vmi} for evacuation from ${node} and keeps creating migrations until that is cancelled (virtctl evacuate-cancel vmi ${view.vmi}, KubeVirt 1.7+)`;
  } catch (e) {
    d.log.warn({ vmi: `${namespace}/${view.vmi}`, err: (e as Error).message }, 'could not read the VMI to see whether KubeVirt still evacuates it');
    return `whether KubeVirt still evacuates VMI ${view.vmi} is unknown: ${(e as Error).message}`;
  }
}

/** The end of an evacuation; answers the reason as written, or undefined when the pod changed meanwhile. */
async function end(d: EvacuationDeps, pod: Pod | undefined, ref: { namespace: string; name: string }, step: Extract<Step, { do: 'end' }>, m: MigrationView | undefined): Promise<string | undefined> {
  if (step.abort && m) await deleteMigration(d.custom, ref.namespace, m.name);
  const view = pod && podView(pod);
  const still = await kubevirtStillEvacuating(d, ref.namespace, view, step.outcome);
  const why = still ? `${step.why}; ${still}` : step.why;
  if (pod && step.write) {
    const at = new Date(d.now()).toISOString();
    const w = await patchAnnotations(d.core, pod, { ...writeState({ state: 'Idle' }, d.config.holder), [A.request]: null, [A.result]: `${step.outcome} at ${at}: ${why}` });
    if (w === 'conflict') return undefined;
  }
  const key = `${ref.namespace}/${ref.name}`;
  await release(d.core, d.config.namespace, (s) => s.pod === key || s.uid === pod?.metadata.uid);
  if (pod && d.events && step.write) {
    const type = (step.outcome === 'Succeeded' || step.outcome === 'Cancelled') && !still ? 'Normal' : 'Warning';
    await recordPodEvent(d.events, { namespace: ref.namespace, name: ref.name, uid: pod.metadata.uid! }, { reason: `Evacuation${step.outcome}`, action: 'Evacuate', type, note: why });
  }
  return why;
}

/** Carry the pod's evacuation as far as it goes now. `initial`: a copy just listed (saves a GET). */
export async function evacuate(d: EvacuationDeps, ref: { namespace: string; name: string }, opts: { initial?: Pod; strategyRequest?: string } = {}): Promise<PassResult> {
  const key = `${ref.namespace}/${ref.name}`;
  let pod = opts.initial;
  const last: PassResult = { outcome: 'waiting', pod: key, why: 'contended: another instance keeps changing the pod' };
  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0 || !pod) pod = await getPod(d.core, ref);
    const view = pod && podView(pod);
    const migration = view && (await observe(d, ref.namespace, view));
    const o: Observation = { now: d.now(), ...(view ? { pod: view } : {}), ...(migration ? { migration } : {}), ...(opts.strategyRequest ? { strategyRequest: opts.strategyRequest } : {}) };
    const step = next(o, d.config.settings);
    const run = view ? readState(view.annotations) : undefined;
    const info = { ...(run && run.state !== 'Idle' ? { attempt: run.attempt } : {}), ...(migration ? { migration: migration.name } : {}) };
    d.log.debug({ pod: key, step }, 'evacuation step');
    switch (step.do) {
      case 'none':
        return { outcome: 'nothing-to-do', pod: key, why: step.why };
      case 'wait':
        return { outcome: 'waiting', pod: key, why: step.why, ...info };
      case 'start': {
        const admitted = await acquire(d.core, d.config.namespace, { uid: view!.uid, pod: key, node: view!.node ?? '', at: o.now }, d.config.limits);
        if (!admitted.ok) return { outcome: 'queued', pod: key, why: admitted.why };
        const request: Record<string, string> = view!.annotations[A.request] ? {} : { [A.request]: step.requestedBy };
        const w = await patchAnnotations(d.core, pod!, { ...writeState(step.next, d.config.holder), ...request });
        if (w !== 'written') continue; // another instance moved first: see what it did
        // What was just written, without reading it back.
        const written = Object.fromEntries(Object.entries(writeState(step.next, d.config.holder)).filter(([, v]) => v !== null)) as Record<string, string>;
        const started = await drive(d, pod!, { ...view!, annotations: { ...view!.annotations, ...written } });
        return { ...started, pod: key, attempt: step.next.attempt, ...(step.next.migration ? { migration: step.next.migration } : {}) };
      }
      case 'drive':
        return { ...(await drive(d, pod!, view!)), pod: key, ...info };
      case 'record':
        await patchAnnotations(d.core, pod!, { [A.migration]: step.migration });
        continue;
      case 'backoff': {
        if ((await patchAnnotations(d.core, pod!, writeState(step.next, d.config.holder))) !== 'written') continue;
        await release(d.core, d.config.namespace, (s) => s.uid === view!.uid);
        return { outcome: 'backoff', pod: key, why: step.why, ...info };
      }
      case 'end': {
        const why = await end(d, pod, ref, step, migration);
        if (why === undefined) continue;
        return { outcome: step.outcome.toLowerCase() as PassOutcome, pod: key, why, ...info };
      }
    }
  }
  return last;
}

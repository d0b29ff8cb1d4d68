// kube-tidy as the eviction responder kube-tidy.dev/kubevirt: every Eviction (lifecycle.k8s.io)
// that lists it, carried as far as it goes now: read, decide (core/responder.ts `answer`: the
// step as effects), apply (io/effects.ts). Status writes carry the resourceVersion read (the API
// server refuses unconditional updates of Evictions), so of two instances one writes and the
// other re-reads and answers again. The migration is named after the Eviction, so a second start
// meets 409 AlreadyExists.
import { retryOnConflict } from '../../kube/conflict.js';
import { getPod } from '../../kube/get.js';
import { readOrAbsent } from '../../kube/read.js';
import { EvictionSchema, type Eviction } from '../core/eviction-request.js';
import { podView } from '../core/pod-view.js';
import { answer, KUBEVIRT_RESPONDER, responderMigrationName, type ResponderSettings, type ResponderStep } from '../core/responder.js';
import type { EvacuationDeps } from './deps.js';
import { apply } from './effects.js';
import { EVICTIONS } from './eviction-request.js';
import { getMigration } from './kubevirt.js';

export interface ResponderResult {
  eviction: string;
  pod?: string;
  step: ResponderStep['do'];
  why: string;
}

const ROUNDS = 4;

async function readEviction(d: EvacuationDeps, namespace: string, name: string): Promise<Eviction | undefined> {
  const raw = await readOrAbsent(`get eviction ${namespace}/${name}`, () => d.custom.getNamespacedCustomObject({ ...EVICTIONS, namespace, name }));
  return raw === undefined ? undefined : EvictionSchema.parse(raw);
}

/**
 * One Eviction, as far as it goes now. One in a protected namespace is left alone (the writer
 * would refuse every write there, and a tick would answer 500 for as long as it exists): as the
 * pod path does, it is answered `none` with the reason, nothing read or written.
 */
export async function respondTo(d: EvacuationDeps, initial: Eviction, settings: ResponderSettings, name = KUBEVIRT_RESPONDER): Promise<ResponderResult> {
  const namespace = initial.metadata.namespace!;
  const key = `${namespace}/${initial.metadata.name}`;
  if (d.writer.options.protectedNamespaces.includes(namespace)) return { eviction: key, step: 'none', why: `namespace ${namespace} is protected` };
  // Read: the Eviction listed, then again after each conflict; the read after the last round
  // only says which answer it is, gone or still changing (ROUNDS decisions, ROUNDS + 1 reads).
  return retryOnConflict(
    async (round) => (round === 0 ? initial : readEviction(d, namespace, initial.metadata.name)),
    async (e, round) => {
      if (!e) return { eviction: key, step: 'none', why: 'the Eviction is gone' };
      if (round === ROUNDS) return { eviction: key, step: 'none', why: 'contended: the Eviction keeps changing' };
      const target = e.spec.target.pod;
      const stored = target && (await getPod(d.core, { namespace, name: target.name }));
      const pod = stored && stored.metadata.uid === target?.uid ? stored : undefined;
      const view = pod && podView(pod);
      const m = await getMigration(d.custom, namespace, responderMigrationName(e.metadata.uid));
      const effects = answer(
        {
          eviction: e,
          name,
          ...(view ? { pod: { ...(view.vmi ? { vmi: view.vmi } : {}) } } : {}),
          ...(m ? { migration: { phase: m.status?.phase ?? '' } } : {}),
          now: d.now(),
        },
        settings,
      );
      const done = await apply(d, { namespace, name: target?.name ?? '', eviction: e, ...(pod ? { pod } : {}) }, effects);
      if (done.end === 'reply') return { eviction: key, ...(target ? { pod: `${namespace}/${target.name}` } : {}), step: done.step, why: done.why };
      if (done.end === 'answer') throw new Error('unreachable: a pass answer from the responder');
      return false; // conflict: someone else wrote; look again
    },
    {
      attempts: ROUNDS + 1,
      exhausted: () => {
        throw new Error('unreachable: the last read answers');
      },
    },
  );
}

/**
 * An Eviction event (a hint that one changed): the stored Eviction decides, and only when its
 * targetResponders list `name` (the pod declared it) does kube-tidy act on it, as a tick would.
 */
export async function respondToStored(
  d: EvacuationDeps,
  ref: { namespace: string; name: string },
  settings: ResponderSettings,
  name = KUBEVIRT_RESPONDER,
): Promise<ResponderResult> {
  const e = await readEviction(d, ref.namespace, ref.name);
  const key = `${ref.namespace}/${ref.name}`;
  if (!e) return { eviction: key, step: 'none', why: 'the Eviction is gone' };
  if (!e.status?.targetResponders?.some((r) => r.name === name)) return { eviction: key, step: 'none', why: `${name} is not among its responders` };
  return respondTo(d, e, settings, name);
}

/** Every Eviction in scope that lists `name` among its responders. */
export async function respondAll(d: EvacuationDeps, settings: ResponderSettings, name = KUBEVIRT_RESPONDER): Promise<ResponderResult[]> {
  const scope = d.config.scope;
  const list = (await readOrAbsent('list evictions', () =>
    scope ? d.custom.listNamespacedCustomObject({ ...EVICTIONS, namespace: scope }) : d.custom.listClusterCustomObject(EVICTIONS),
  )) as { items?: unknown[] } | undefined;
  const mineToAnswer = (list?.items ?? []).map((i) => EvictionSchema.parse(i)).filter((e) => e.status?.targetResponders?.some((r) => r.name === name));
  const results: ResponderResult[] = [];
  for (const e of mineToAnswer) results.push(await respondTo(d, e, settings, name));
  return results;
}

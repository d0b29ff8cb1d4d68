// A poll tick: every pod with an evacuation requested or under way, carried as far as it goes
// now, and slots nobody holds any more given back. Events start evacuations promptly; ticks
// move them on (a migration's progress produces no pod event) and catch missed events.
import { getPod } from '../../kube/get.js';
import { listPods } from '../../kube/list.js';
import type { Stored } from '../../model/identity.js';
import type { Pod } from '../../model/objects.js';
import { EVACUATION_ANNOTATIONS as ANNOTATIONS } from '../../model/keys.js';
import { requestLeftBehind, type Eviction } from '../core/eviction-request.js';
import { evacuate, type EvacuationDeps, type PassResult } from './evacuate.js';
import { deleteEvictionRequest, evictionsIn, ownEvictionRequests } from './eviction-request.js';
import { settleSlots } from './slots.js';

export interface TickSummary {
  pods: number;
  results: PassResult[];
  freedSlots: number;
  /** kube-tidy's EvictionRequests deleted because their pod is gone and its Eviction ended. */
  requestsCollected?: number;
}

// In flight first (ending ones free slots for the rest), then backoffs, then new requests
// oldest first: the order a single instance fills the slots in.
function rank(p: Pod): number {
  const state = p.metadata.annotations?.[ANNOTATIONS.state];
  return state === 'Started' ? 0 : state === 'Backoff' ? 1 : 2;
}

export async function tick(d: EvacuationDeps, opts: { budgetMs?: number } = {}): Promise<TickSummary> {
  const started = d.now();
  const scope = d.config.scope;
  const pods: Stored<Pod>[] = [];
  const listed = new Set<string>();
  // Annotations cannot be selected on: one paginated LIST (as the sweep does), filtered here.
  for await (const page of listPods(d.core, scope ? { namespace: scope } : {})) {
    for (const p of page.items) {
      listed.add(p.metadata.uid!);
      if (p.metadata.annotations?.[ANNOTATIONS.request] !== undefined || p.metadata.annotations?.[ANNOTATIONS.state] !== undefined) pods.push(p);
    }
  }
  pods.sort((a, b) => rank(a) - rank(b) || String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)));
  const results: PassResult[] = [];
  for (const p of pods) {
    if (opts.budgetMs !== undefined && d.now() - started > opts.budgetMs) break; // the next tick goes on
    results.push(await evacuate(d, { namespace: p.metadata.namespace!, name: p.metadata.name! }, { initial: p }));
  }
  // Only pods whose state says Started hold slots; crashes between "ended" and "released" leave the rest.
  const inFlight = new Map<string, { namespace: string; name: string }>();
  const ref = (p: Stored<Pod>) => ({ namespace: p.metadata.namespace!, name: p.metadata.name! });
  // A pod being deleted is not: its evacuation ended with it (the machine's rule), told by the release of its slot.
  for (const p of pods) if (p.metadata.annotations?.[ANNOTATIONS.state] === 'Started' && !p.metadata.deletionTimestamp) inFlight.set(p.metadata.uid!, ref(p));
  for (const r of results) {
    const p = r.outcome === 'started' && pods.find((x) => `${x.metadata.namespace}/${x.metadata.name}` === r.pod);
    if (p) inFlight.set(p.metadata.uid!, ref(p));
  }
  const freedSlots = await settleSlots(d, { scope, listed, inFlight });
  // Pods just listed are there (a request of one gone since waits for the next tick).
  const collected = d.evictionRequests ? await collectRequests(d, d.evictionRequests.requester, scope, new Set(pods.map((p) => p.metadata.uid!))) : undefined;
  return { pods: pods.length, results, freedSlots, ...(collected === undefined ? {} : { requestsCollected: collected }) };
}

/**
 * Deletes kube-tidy's EvictionRequests left behind by pods that are gone (core:
 * requestLeftBehind): ours by label and requester, each delete tied to the request as read.
 * A pod is read only when the tick's list did not have it, the Evictions once per namespace.
 * One in a protected namespace (made protected after kube-tidy asked there) is left alone, as
 * the pod path leaves that namespace's pods: the writer would refuse the delete, and every tick
 * would answer 500 for as long as it stays.
 */
async function collectRequests(d: EvacuationDeps, requester: string, scope: string | undefined, listed: ReadonlySet<string>): Promise<number> {
  let deleted = 0;
  const evictions = new Map<string, Promise<Eviction[]>>();
  for (const er of await ownEvictionRequests(d.custom, scope)) {
    const namespace = er.metadata.namespace;
    const target = er.spec.target.pod;
    if (!namespace || !target || er.spec.requester !== requester) continue;
    if (d.writer.options.protectedNamespaces.includes(namespace)) continue;
    const there = listed.has(target.uid) || (await getPod(d.core, { namespace, name: target.name }))?.metadata.uid === target.uid;
    if (!there && !evictions.has(namespace)) evictions.set(namespace, evictionsIn(d.custom, namespace));
    const eviction = there ? undefined : (await evictions.get(namespace)!).find((e) => e.spec.target.pod?.uid === target.uid);
    if (!requestLeftBehind(there, eviction)) continue;
    // Changed since it was listed (`stale`): decided again on the next tick.
    if ((await deleteEvictionRequest(d.writer, namespace, er.metadata.name, er.metadata)) === 'deleted') deleted++;
  }
  return deleted;
}

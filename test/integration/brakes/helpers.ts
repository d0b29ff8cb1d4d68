// What the brakes tests share: Failed pods made in bulk (one LIST to wait on, not a poll per
// pod), the policies, the broker a fanned-out sweep posts its shards to (played by the test),
// the stored ledger, and windows with room enough that a test cannot straddle a boundary.
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { BRAKES_NAME, stateOf } from '../../../shared/brakes/io/store.js';
import { normalize, used, type LedgerState } from '../../../shared/brakes/core/ledger.js';
import { DEFAULT_WINDOW_MS } from '../../../shared/policy/brakes-schema.js';
import { EXIT_CODE_ANNOTATION, sharedCluster, waitFor } from '../../harness/index.js';
import { policyDoc } from '../../fixtures/policy.js';

export const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);

const IMAGE = 'registry.k8s.io/pause:3.10';

/**
 * Creates `names` in `namespace` (Failed with `exitCode`, or Running without) and waits with
 * one LIST per poll until every one is in its phase; returns them as stored then.
 */
export async function makePods(
  namespace: string,
  names: readonly string[],
  opts: { exitCode?: number; labels?: Record<string, string> } = {},
): Promise<V1Pod[]> {
  const api = core();
  const annotations: Record<string, string> = opts.exitCode === undefined ? {} : { [EXIT_CODE_ANNOTATION]: String(opts.exitCode) };
  for (let i = 0; i < names.length; i += 10) {
    await Promise.all(
      names.slice(i, i + 10).map((name) =>
        api.createNamespacedPod({
          namespace,
          body: { metadata: { name, labels: opts.labels, annotations }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: IMAGE }] } },
        }),
      ),
    );
  }
  const want = opts.exitCode === undefined ? 'Running' : opts.exitCode === 0 ? 'Succeeded' : 'Failed';
  const wanted = new Set(names);
  return waitFor(
    `${names.length} pods ${want} in ${namespace}`,
    async () => {
      const pods = (await api.listNamespacedPod({ namespace })).items.filter((p) => wanted.has(p.metadata!.name!));
      if (pods.length !== names.length || !pods.some((p) => p.status?.phase === want) || !pods.every((p) => p.status?.phase === want)) return undefined;
      // Items of a LIST carry no kind: an event's object does.
      return pods.map((p) => ({ apiVersion: 'v1', kind: 'Pod', ...p })).sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
    },
    { timeoutMs: 90_000, intervalMs: 300 },
  );
}

export const range = (prefix: string, n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${from + i}`);

/** Names of the pods left in `namespace`. */
export const podNames = async (namespace: string): Promise<string[]> =>
  (await core().listNamespacedPod({ namespace })).items.map((p) => p.metadata!.name!).sort();

/**
 * The storm's policy as a user writes it: RemoveFailedPods on exit code 137 at once, bare
 * Failed pods allowed, only in `namespaces` (the cluster is shared with other test files).
 */
export function failedPolicy(namespaces: string[], top: Record<string, unknown> = {}, labels?: Record<string, string>) {
  const selector = labels ? { labelSelector: { matchLabels: labels } } : {};
  return policyDoc([{ name: 'RemoveFailedPods', args: { exitCodes: [137], minPodLifetimeSeconds: 0, namespaces: { include: namespaces }, ...selector } }], {
    evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
    top,
  });
}

/** The ledger as stored (empty when the ConfigMap is not there; the test fails when it cannot be read as one). */
export async function storedLedger(namespace: string): Promise<LedgerState> {
  const cm = await core()
    .readNamespacedConfigMap({ namespace, name: BRAKES_NAME })
    .catch(() => undefined);
  const state = stateOf(cm);
  if (!state) throw new Error(`the ledger ${namespace}/${BRAKES_NAME} cannot be read as one: ${JSON.stringify(cm?.data)}`);
  return state;
}

/** Units counted as spent for `counter` as any instance would see them at `now` (expired holds charged). */
export const spentAt = (state: LedgerState, counter: string, now: number): number => used(normalize(state, now), counter);

/**
 * A window of about the default's length whose current instance has at least `needMs` left:
 * the default (no kubeTidy section needed) when it has room, else a neighbour. Windows are
 * aligned to the epoch, so a test that must not straddle a boundary picks one, never waits.
 */
export function windowWithRoom(needMs: number, now = Date.now()): { top: Record<string, unknown>; windowMs: number } {
  for (const minutes of [15, 14, 16, 13, 17, 12, 18, 11, 19, 20, 21, 22]) {
    const w = minutes * 60_000;
    if (w - (now % w) >= needMs) return { top: w === DEFAULT_WINDOW_MS ? {} : { kubeTidy: { brakes: { window: `${minutes}m` } } }, windowMs: w };
  }
  throw new Error('no window with room (unreachable: the candidates do not share boundaries)');
}

export const windowEnd = (now: number, windowMs: number): string => new Date(Math.floor(now / windowMs) * windowMs + windowMs).toISOString();

export { broker } from '../functions/setup.js';

/** Runs `jobs` with at most `n` in flight, in order; the results in the same order. */
export async function limited<T>(n: number, jobs: readonly (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, jobs.length) }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]!();
      }
    }),
  );
  return out;
}

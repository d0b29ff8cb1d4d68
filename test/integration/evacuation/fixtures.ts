// What the evacuation tests share: KubeVirt's CRDs installed, a VMI with its launcher pod on a
// kwok node, the test webhook and migration controller, and the function served over HTTP.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll } from 'vitest';
import { evacuation } from '../../../functions/evacuation.js';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { SLOT_STORE_NAME } from '../../../shared/evacuation/io/slot-store.js';
import { installCrds, kubectl, sharedCluster, waitFor } from '../../harness/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { knativeRequest, pingRequest, runPod, runtimeFor, send, serve } from '../functions/setup.js';
import { BEHAVIOUR, startMigrationController, type MigrationController } from './controller.js';
import { startWebhook, type Webhook } from './webhook.js';
import { FIELD_MANAGER } from '../../../shared/kube/written-by.js';

export const KUBEVIRT_CRDS = fileURLToPath(new URL('../../fixtures/kubevirt', import.meta.url));
const KV = { group: 'kubevirt.io', version: 'v1' } as const;
// Running pods labelled evacuate=now are selected: the strategy decision behind a request-evict-only pod.
export const POLICY = policyDoc([{ name: 'PodLifeTime', args: { states: ['Running'], labelSelector: { matchLabels: { evacuate: 'now' } } } }]);

export const kc = (): KubeConfig => sharedCluster().kubeConfig();
export const core = () => kc().makeApiClient(CoreV1Api);
export const custom = () => kc().makeApiClient(CustomObjectsApi);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export async function installKubevirtCrds(): Promise<void> {
  await installCrds(sharedCluster(), KUBEVIRT_CRDS);
}

/**
 * KubeVirt's stand-ins for one test namespace: the CRDs, the eviction webhook and the migration
 * controller. The API server picks a new webhook configuration up asynchronously, so a dry-run
 * eviction of a probe pod is repeated until the webhook is called.
 */
export async function startKubevirtStandIns(ns: string): Promise<{ webhook: Webhook; controller: MigrationController }> {
  await installKubevirtCrds();
  const webhook = await startWebhook(kc(), ns);
  const controller = await startMigrationController(kc(), ns);
  await runPod(core(), ns, 'probe');
  await waitFor('the webhook to be called', async () => {
    await core()
      .createNamespacedPodEviction({ namespace: ns, name: 'probe', body: { metadata: { name: 'probe', namespace: ns } }, dryRun: 'All' })
      .catch(() => {});
    return webhook.calls > 0;
  });
  return { webhook, controller };
}

/** The stand-ins started before the file's tests and stopped after them (for files that only need them running). */
export function useKubevirtStandIns(ns: { name: string }): void {
  let running: Awaited<ReturnType<typeof startKubevirtStandIns>> | undefined;
  beforeAll(async () => {
    running = await startKubevirtStandIns(ns.name);
  });
  afterAll(async () => {
    await running?.controller.stop();
    await running?.webhook.stop();
  });
}

export async function kwokNodes(): Promise<string[]> {
  return (await core().listNode()).items.map((n) => n.metadata!.name!).sort();
}

/** A VMI and its launcher pod (labelled and owned as KubeVirt makes them), Running on `node`. */
export async function createVm(
  ns: string,
  name: string,
  opts: { behaviour?: string; node?: string; request?: boolean; labels?: Record<string, string>; responders?: { name: string; priority: number }[] } = {},
): Promise<V1Pod> {
  const vmi = (await custom().createNamespacedCustomObject({
    ...KV,
    plural: 'virtualmachineinstances',
    namespace: ns,
    body: {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name, labels: { ...opts.labels, [BEHAVIOUR]: opts.behaviour ?? 'succeed' } },
      spec: {},
    },
  })) as { metadata: { uid: string } };
  const body = {
    metadata: {
      name: `virt-launcher-${name}`,
      labels: { 'kubevirt.io': 'virt-launcher', 'kubevirt.io/created-by': vmi.metadata.uid },
      annotations: { [ANNOTATIONS.requestEvictOnly]: '', ...(opts.request ? { [ANNOTATIONS.request]: 'test' } : {}) },
      ownerReferences: [
        { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', name, uid: vmi.metadata.uid, controller: true, blockOwnerDeletion: true },
      ],
    },
    spec: {
      ...(opts.node ? { nodeName: opts.node } : {}),
      ...(opts.responders ? { evictionResponders: opts.responders } : {}),
      restartPolicy: 'Never',
      containers: [{ name: 'compute', image: 'registry.k8s.io/pause:3.10' }],
    },
  };
  // client-node's models have no spec.evictionResponders (v1.37 alpha) and drop what they do
  // not know: such a pod is created by kubectl from its JSON.
  if (opts.responders) await createRaw(ns, { apiVersion: 'v1', kind: 'Pod', ...body });
  else await core().createNamespacedPod({ namespace: ns, body });
  return waitFor(`${ns}/virt-launcher-${name} Running`, async () => {
    const p = await core().readNamespacedPod({ namespace: ns, name: `virt-launcher-${name}` });
    return p.status?.phase === 'Running' ? p : undefined;
  });
}

/** Creates an object from its JSON as is (fields client-node does not model are kept). */
export async function createRaw(ns: string, obj: object): Promise<void> {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-raw-')), 'object.json');
  writeFileSync(file, JSON.stringify(obj));
  await kubectl(sharedCluster(), ['create', '-n', ns, '-f', file]);
}

export async function annotate(ns: string, pod: string, annotations: Record<string, string | null>): Promise<V1Pod> {
  return core().patchNamespacedPod({ namespace: ns, name: pod, body: { metadata: { annotations } } }, merge);
}

export async function readPod(ns: string, name: string): Promise<V1Pod | undefined> {
  return core()
    .readNamespacedPod({ namespace: ns, name })
    .catch(() => undefined);
}

export async function migrations(ns: string): Promise<{ metadata: { name: string }; spec: { vmiName: string }; status?: { phase?: string } }[]> {
  // A first LIST of a freshly installed CRD may meet its watch cache still initializing: the API
  // server answers 429 with Retry-After, which means "ask again", not a failure of the test.
  const list = () => custom().listNamespacedCustomObject({ ...KV, plural: 'virtualmachineinstancemigrations', namespace: ns }) as Promise<{ items: never[] }>;
  for (let i = 0; ; i++) {
    try {
      return (await list()).items;
    } catch (e) {
      if (i >= 20 || (e as { code?: number }).code !== 429) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

// The shared cluster serves lifecycle.k8s.io (EvictionRequestAPI on): the direct path's tests
// turn it off; eviction-request.test.ts passes `auto`; no-group.test.ts runs without the group.
// The slots are kept in the brakes' ledger: each test namespace has its own (BRAKES_NAMESPACE),
// which is also where the previous release's slots would be (EVACUATION_NAMESPACE).
export function evacuationEnv(ns: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    EVACUATION_NAMESPACE: ns,
    BRAKES_NAMESPACE: ns,
    EVACUATION_SCOPE_NAMESPACE: ns,
    EVACUATION_BACKOFF_SECONDS: '0.2',
    EVACUATION_EVICTION_REQUESTS: 'off',
    ...extra,
  };
}

/** The function in this process over HTTP: `event(pod)` sends a pod update, `tick()` a PingSource tick. */
export async function serveEvacuation(ns: string, extra: Record<string, string> = {}) {
  const env = evacuationEnv(ns, extra);
  const rt = await runtimeFor(POLICY, env);
  const agent = serve(evacuation, rt);
  return {
    /** The instance's recorder: what its /metrics would show. */
    metrics: rt.metrics,
    /** Sends what the instance's outbox still holds (EVENTS_SINK in `extra`), for at most `maxMs`. */
    flushEvents: (maxMs: number) => rt.notifier.flush(maxMs),
    event: async (pod: V1Pod, verb: 'update' | 'delete' = 'update') =>
      (await send(agent, knativeRequest('binary', verb, { apiVersion: 'v1', kind: 'Pod', ...pod } as V1Pod))).body as Record<string, unknown>,
    raw: (req: { headers: Record<string, string>; body: string }) => send(agent, req),
    tick: async () =>
      (await send(agent, pingRequest())).body as {
        summary: Record<string, number>;
        results: { pod: string; outcome: string; why: string }[];
        evictionRequests: string;
        responded?: { eviction: string; step: string; why: string }[];
      },
  };
}

/** Ticks until `done` holds for the pod's result (bounded; no fixed sleeps beyond the poll interval). */
export async function tickUntil(
  fn: { tick: () => Promise<{ results: { pod: string; outcome: string }[] }> },
  what: string,
  done: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  await waitFor(
    what,
    async () => {
      if (await done()) return true;
      await fn.tick();
      return done();
    },
    { timeoutMs, intervalMs: 150 },
  );
}

/**
 * Puts one slot into the brakes' ledger in `ns` (ConfigMap kube-tidy-brakes, key ledger.json) as
 * another instance's write would leave it, at the resourceVersion read (created if missing).
 */
export async function putLedgerSlot(ns: string, uid: string, slot: { pod: string; node: string; at: number; attempt?: number }): Promise<void> {
  const cm = await core()
    .readNamespacedConfigMap({ namespace: ns, name: SLOT_STORE_NAME })
    .catch(() => undefined);
  const state = cm?.data?.['ledger.json'] ? JSON.parse(cm.data['ledger.json']) : { counts: {}, holds: {}, trips: {} };
  state.slots = { ...state.slots, [uid]: slot };
  const data = { 'ledger.json': JSON.stringify(state) };
  // Under kube-tidy's field manager, as its write would be (another's is rebuilt blind: brakes/io/lost.ts).
  if (cm)
    await core().replaceNamespacedConfigMap({
      namespace: ns,
      name: SLOT_STORE_NAME,
      body: { metadata: { name: SLOT_STORE_NAME, resourceVersion: cm.metadata!.resourceVersion }, data },
      fieldManager: FIELD_MANAGER,
    });
  else await core().createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: SLOT_STORE_NAME }, data }, fieldManager: FIELD_MANAGER });
}

/** Sets how the migration stand-in treats the VMI's migrations (controller.ts BEHAVIOUR): a held one then follows it. */
export async function setMigrationBehaviour(ns: string, vmi: string, behaviour: string): Promise<void> {
  await custom().patchNamespacedCustomObject(
    { ...KV, plural: 'virtualmachineinstances', namespace: ns, name: vmi, body: { metadata: { labels: { [BEHAVIOUR]: behaviour } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

// The adversary tests' world on the shared cluster: a namespace of static pods, every
// function as its own process from the production entry with its own ServiceAccount (the
// generated RBAC), and the audit log as the oracle of what each function sent.
//
// The pods are static: never scheduled (a schedulerName nobody serves), their status written
// once through the status subresource, so their stored state does not change under a test and
// "what would the policy do with the pods as stored" has one answer at any moment.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { decide } from '../../../shared/selection/decide.js';
import { loadPolicy } from '../../../shared/policy/load.js';
import {
  describeWrite,
  installCrds,
  type AuditLog,
  sharedAudit,
  sharedCluster,
  upstreamCrdsDir,
  type AuditMark,
  type AuditWrite,
} from '../../harness/index.js';
import { functionIdentities, type FunctionIdentities } from '../../harness/function-identity.js';
import { startServerProcess, type ServerProcess } from '../../harness/function-process.js';
import { writeKubeconfig } from '../../harness/credentials.js';
import { policyDoc } from '../../fixtures/policy.js';

export const TARGETS = ['podTerminated', 'sweep', 'invoke', 'jobDeleted', 'orphanSweep', 'defrag', 'evacuation'] as const;
export type Target = (typeof TARGETS)[number];

export const NOBODY = 'kube-tidy-adversary-nobody';
export const INVOKE_TOKEN = 'adversary-invoke-token-0123456789';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * Failed and Succeeded pods labelled tidy=yes in the test namespace go at once (no age): the
 * policy every cleanup target gets. Anything else, anywhere else, must never be written.
 */
export function adversaryPolicy(ns: string): Record<string, unknown> {
  return policyDoc(
    [{ name: 'PodLifeTime', args: { states: ['Failed', 'Succeeded'], labelSelector: { matchLabels: { tidy: 'yes' } }, namespaces: { include: [ns] } } }],
    {
      evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
    },
  );
}

export interface StaticPod {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  labels?: Record<string, string>;
  finalizers?: string[];
  exitCode?: number;
  reason?: string;
  restarts?: number;
}

export interface Adversary {
  ns: string;
  kueueNs: string;
  core: CoreV1Api;
  ids: FunctionIdentities;
  /** The running function of each started target. */
  fn: Partial<Record<Target, ServerProcess>>;
  policyFile: string;
  /** Starts `target` from the production entry as its ServiceAccount: `fn[target]` from now on. */
  start(target: Target): Promise<ServerProcess>;
  /** Another process of `target`, `env` added to the defaults; the caller stops it. */
  spawn(target: Target, env: Record<string, string>): Promise<ServerProcess>;
  mark(): AuditMark;
  /** What the functions (their ServiceAccounts, the MultiKueue worker account) sent since `mark`. */
  writesSince(mark: AuditMark): Promise<AuditWrite[]>;
  /** Names of the pods in the namespace the policy selects as they are stored now. */
  selectedNow(): Promise<Set<string>>;
  staticPod(name: string, spec: StaticPod): Promise<V1Pod>;
  stop(): Promise<void>;
}

/** The cluster to work on: the shared one in tests, one of its own in a bench. */
export interface On {
  kubeconfigPath: string;
  kubeConfig(): KubeConfig;
  audit: AuditLog;
}

/** Creates the world; call in beforeAll after testNamespace() has made `ns`. */
export async function adversary(ns: string, targets: readonly Target[], on: On = { ...sharedCluster(), audit: sharedAudit() }): Promise<Adversary> {
  const cluster = on;
  const kc = cluster.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const audit = on.audit;
  const kueueNs = `${ns}-kueue`;
  await core.createNamespace({ body: { metadata: { name: kueueNs } } });
  const ids = await functionIdentities(kc, cluster.kubeconfigPath, ns, kueueNs);
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-adversary-'));
  const doc = adversaryPolicy(ns);
  const policyFile = join(dir, 'policy.json');
  writeFileSync(policyFile, JSON.stringify(doc));
  const policy = loadPolicy(doc).policy;

  // MultiKueue's workers are reached with kubeconfigs of their own (Kueue's Secrets): here
  // one worker, the shared cluster itself (with Kueue's CRDs), as an account of its own, and a
  // MultiKueue origin label nobody else uses, so no object of another test looks like a copy.
  await installCrds(cluster, upstreamCrdsDir('kueue'));
  const worker = `${ns}-mk-worker`;
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'mk-worker' } } });
  await rbac.createClusterRole({
    body: {
      metadata: { name: worker },
      rules: [
        { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'delete'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'delete'] },
        { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'update', 'patch'] },
        { apiGroups: ['kueue.x-k8s.io'], resources: ['workloads'], verbs: ['get', 'list'] },
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create'] },
      ],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: worker },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: worker },
      subjects: [{ kind: 'ServiceAccount', name: 'mk-worker', namespace: ns }],
    },
  });
  const token = await core.createNamespacedServiceAccountToken({
    name: 'mk-worker',
    namespace: ns,
    body: { spec: { expirationSeconds: 3600, audiences: [] } },
  });
  const c = kc.getCurrentCluster()!;
  const workerKubeconfig = writeKubeconfig(
    join(dir, 'worker.kubeconfig'),
    'worker',
    c.server,
    Buffer.from(c.caData ?? '', 'base64').toString('utf8'),
    token.status!.token,
  );
  const users = new Set([...TARGETS.map((t) => ids.user(t)), `system:serviceaccount:${ns}:mk-worker`]);

  const defaults = (target: Target): Record<string, string> => ({
    POLICY_FILE: policyFile,
    KUBECONFIG: ids.kubeconfig(target),
    LOG_LEVEL: 'warn',
    REQUEST_TIMEOUT_SECONDS: '5',
    SWEEP_TIME_BUDGET_SECONDS: '20',
    SHUTDOWN_TIMEOUT_SECONDS: '5',
    INVOKE_TOKEN,
    KUEUE_NAMESPACE: kueueNs,
    MULTIKUEUE_ORIGIN: `adv-${ns}`,
    MULTIKUEUE_WORKERS: `worker-1=${workerKubeconfig}`,
    EVACUATION_NAMESPACE: ns,
    // The brakes' ledger (evacuation's slots with it) in the test's namespace, where the identities' RBAC is.
    BRAKES_NAMESPACE: ns,
    EVACUATION_SCOPE_NAMESPACE: ns,
    EVACUATION_BACKOFF_SECONDS: '0.2',
    // The due list in the test's namespace (where the identities' RBAC is), and a tick that reads
    // it once and answers rather than holding its request for the minute until the next tick.
    DUE_NAMESPACE: ns,
    DUE_POLL_SECONDS: '60',
    // A real defrag tick plans over the whole shared cluster and would evict other tests' pods.
    ...(target === 'defrag' ? { DRY_RUN: 'true' } : {}),
  });

  const env: Adversary = {
    ns,
    kueueNs,
    core,
    ids,
    fn: {},
    policyFile,
    async start(target) {
      const p = await startServerProcess(target, defaults(target));
      env.fn[target] = p;
      return p;
    },
    spawn: (target, extra) => startServerProcess(target, { ...defaults(target), ...extra }),
    mark: () => audit.mark(),
    async writesSince(mark) {
      return (await audit.settledSince(mark)).filter((w) => users.has(w.user));
    },
    async selectedNow() {
      const pods = (await core.listNamespacedPod({ namespace: ns })).items;
      const plan = decide(policy, { pods: pods as never }, Date.now(), {});
      return new Set(plan.decisions.map((d) => d.name));
    },
    staticPod: (name, spec) => createStaticPod(core, ns, name, spec),
    async stop() {
      await Promise.all(Object.values(env.fn).map((p) => p.stop()));
      await ids.remove();
      await rbac.deleteClusterRoleBinding({ name: worker }).catch(() => undefined);
      await rbac.deleteClusterRole({ name: worker }).catch(() => undefined);
      await core.deleteNamespace({ name: kueueNs }).catch(() => undefined);
    },
  };
  await Promise.all(targets.map((t) => env.start(t)));
  return env;
}

/** A pod no scheduler places, its status written once: stays as created. */
export async function createStaticPod(core: CoreV1Api, namespace: string, name: string, spec: StaticPod): Promise<V1Pod> {
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name, labels: spec.labels, finalizers: spec.finalizers },
      spec: {
        schedulerName: NOBODY,
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
      },
    },
  });
  if (spec.phase === 'Pending') return core.readNamespacedPod({ namespace, name });
  const terminated = spec.phase === 'Failed' || spec.phase === 'Succeeded';
  const exitCode = spec.exitCode ?? (spec.phase === 'Failed' ? 1 : 0);
  const now = new Date().toISOString();
  const state = terminated
    ? { terminated: { exitCode, reason: spec.reason ?? (exitCode === 0 ? 'Completed' : 'Error'), startedAt: now, finishedAt: now } }
    : { running: { startedAt: now } };
  const status = {
    phase: spec.phase,
    startTime: now,
    conditions: [{ type: 'Ready', status: spec.phase === 'Running' ? 'True' : 'False', lastTransitionTime: now }],
    containerStatuses: [
      {
        name: 'main',
        image: 'registry.k8s.io/pause:3.10',
        imageID: '',
        ready: spec.phase === 'Running',
        started: spec.phase === 'Running',
        restartCount: spec.restarts ?? 0,
        state,
      },
    ],
  };
  return core.patchNamespacedPodStatus({ namespace, name, body: { status } }, merge);
}

/** Lets a pod held by a finalizer go. */
export const release = (core: CoreV1Api, namespace: string, name: string) =>
  core.patchNamespacedPod({ namespace, name, body: { metadata: { finalizers: null } } }, merge);

/**
 * A write is wrong unless it is a dry run or one `allowed` accepts; and every pod DELETE or
 * eviction must carry both a uid and a resourceVersion precondition.
 */
export function wrongWrites(writes: AuditWrite[], allowed: (w: AuditWrite) => boolean): string[] {
  const unbound = (w: AuditWrite) => w.preconditions !== undefined && !(w.preconditions.uid && w.preconditions.resourceVersion);
  return writes
    .filter((w) => !w.dryRun && (!allowed(w) || unbound(w)))
    .map((w) => `${describeWrite(w)}${unbound(w) ? ` [preconditions ${JSON.stringify(w.preconditions)}]` : ''}`);
}

/** A pod write (delete, eviction, patch) of a pod in `ns` named in `names`, or an Event there (created, or an Event series' count patched in place). */
export const podWriteIn =
  (ns: string, names: Set<string>) =>
  (w: AuditWrite): boolean =>
    w.namespace === ns &&
    ((w.resource === 'pods' && w.name !== undefined && names.has(w.name)) || (w.resource === 'events' && (w.verb === 'create' || w.verb === 'patch')));

/** What each target may write besides pods the policy selects (and Events in the namespace). */
export function allowedFor(env: Pick<Adversary, 'ns' | 'kueueNs'>, target: Target, selected: Set<string>): (w: AuditWrite) => boolean {
  switch (target) {
    case 'podTerminated':
    case 'sweep':
    case 'invoke':
      return podWriteIn(env.ns, selected);
    // MultiKueue's witness ConfigMap lives in the Kueue namespace of each worker.
    case 'jobDeleted':
    case 'orphanSweep':
      return (w) => w.resource === 'configmaps' && w.namespace === env.kueueNs;
    // Evacuation's ledger of slots is a ConfigMap in its own namespace.
    case 'evacuation':
      return (w) => w.resource === 'configmaps' && w.namespace === env.ns;
    // Dry run (see defaults): nothing at all.
    case 'defrag':
      return () => false;
  }
}

// TTL on any kind through the objects pass, on the real control plane: a Deployment, a
// ConfigMap, a Service and Namespaces carrying Kyverno's label or kube-janitor's keys. The
// pass's clock is the handle's `now`, three hours ahead (a namespace created "3h ago" cannot be
// faked with creationTimestamp, which the API server sets): kube-janitor's example, a namespace
// with `janitor/ttl: 2h`, is then expired, one with 48h is not. Report mode removes nothing and
// says so; delete mode removes the expired ones only (a Namespace through the namespace
// controller: Terminating, then gone), keeps the not-yet-expired and the unreadable ones, never a
// protected namespace, and says what an expired Namespace holds. A kind the cluster does not
// serve is said, and the rule goes on with the others.
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeClients } from '../../../shared/kube/clients.js';
import { ClusterWriter } from '../../../shared/kube/writer.js';
import { runObjectsPass, type ObjectsHandle, type ObjectsPassSummary } from '../../../shared/objects/index.js';
import { sharedCluster, waitFor } from '../../harness/index.js';
import { objectsSuite, type TestHandle } from '../objects/handle.js';
import { testTicket } from '../../fixtures/ticket.js';

const { ns, handle } = objectsSuite('ttl-kinds');
const kc = () => sharedCluster().kubeConfig();
const core = () => kc().makeApiClient(CoreV1Api);
const apps = () => kc().makeApiClient(AppsV1Api);
const HOUR = 3_600_000;

let h: TestHandle;
let mode: 'report' | 'delete' = 'report';
/** Namespaces this file makes (beside its own): each expired one, a fresh one, a protected one. */
const made: string[] = [];
const nsName = (what: string) => `${ns.name}-${what}`;

const rule = () => ({
  name: 'previews',
  mode,
  kinds: [
    { version: 'v1', kind: 'Namespace' },
    { group: 'apps', version: 'v1', kind: 'Deployment' },
    { version: 'v1', kind: 'ConfigMap' },
    { version: 'v1', kind: 'Service' },
    { group: 'example.com', version: 'v1', kind: 'Widget' },
  ],
  namespaces: { include: [ns.name, nsName('expired'), nsName('fresh'), nsName('guarded')] },
});

/** The pass as three hours from now, with the file's "guarded" namespace protected as PROTECTED_NAMESPACES would. */
const later = (): ObjectsHandle => ({
  ...h.handle,
  now: () => Date.now() + 3 * HOUR,
  settings: { ...h.handle.settings, protectedNamespaces: [nsName('guarded')] },
});
const pass = (): Promise<ObjectsPassSummary> => runObjectsPass(later(), { origin: 'sweep', dryRun: false });

async function namespaceWith(what: string, meta: { labels?: Record<string, string>; annotations?: Record<string, string> }) {
  const name = nsName(what);
  made.push(name);
  await core().createNamespace({ body: { metadata: { name, ...meta } } });
  return name;
}

const meta = (name: string, m: { labels?: Record<string, string>; annotations?: Record<string, string> }) => ({ name, namespace: ns.name, ...m });

beforeAll(async () => {
  h = handle({ policy: () => ({ kubeTidy: { ttl: [rule()] } }) });
  const expired = await namespaceWith('expired', { annotations: { 'janitor/ttl': '2h' } });
  await namespaceWith('fresh', { annotations: { 'janitor/ttl': '48h' } });
  await namespaceWith('guarded', { labels: { 'cleanup.kyverno.io/ttl': '1h' } });
  // What the expired namespace holds: a claim (no default ServiceAccount is needed for one).
  await core().createNamespacedPersistentVolumeClaim({
    namespace: expired,
    body: { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  });
  const labels = { app: 'preview' };
  await apps().createNamespacedDeployment({
    namespace: ns.name,
    body: {
      metadata: meta('web', { labels: { ...labels, 'cleanup.kyverno.io/ttl': '1h' } }),
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'pause' }] } } },
    },
  });
  await core().createNamespacedConfigMap({ namespace: ns.name, body: { metadata: meta('old-config', { annotations: { 'janitor/expires': '2020-01-01' } }) } });
  await core().createNamespacedConfigMap({ namespace: ns.name, body: { metadata: meta('new-config', { annotations: { 'janitor/ttl': '7d' } }) } });
  await core().createNamespacedService({
    namespace: ns.name,
    body: { metadata: meta('typo', { annotations: { 'janitor/ttl': '2 hours' } }), spec: { ports: [{ port: 80 }] } },
  });
}, 60_000);

afterAll(async () => {
  for (const name of made)
    await core()
      .deleteNamespace({ name })
      .catch(() => undefined);
});

const line = (s: ObjectsPassSummary) => [
  ...s.results.map((r) => `${r.decision.kind} ${r.decision.name}: ${r.outcome}`),
  ...s.kept.map((k) => `${k.kind} ${k.name}: kept`),
  ...s.eligible.map((e) => `${e.kind} ${e.name}: waiting`),
];

async function present(kind: 'Namespace' | 'Deployment' | 'ConfigMap' | 'Service', name: string): Promise<boolean> {
  const read =
    kind === 'Namespace'
      ? core().readNamespace({ name })
      : kind === 'Deployment'
        ? apps().readNamespacedDeployment({ namespace: ns.name, name })
        : kind === 'ConfigMap'
          ? core().readNamespacedConfigMap({ namespace: ns.name, name })
          : core().readNamespacedService({ namespace: ns.name, name });
  return read.then(
    (o) => !o.metadata?.deletionTimestamp,
    () => false,
  );
}

describe('TTL on any kind', () => {
  it('report mode removes nothing, and reports each object as expired, waiting, unreadable or protected', async () => {
    mode = 'report';
    const s = await pass();
    expect(line(s).sort()).toEqual(
      [
        'ConfigMap new-config: waiting',
        'ConfigMap old-config: reported',
        'Deployment web: reported',
        `Namespace ${nsName('expired')}: reported`,
        `Namespace ${nsName('fresh')}: waiting`,
        `Namespace ${nsName('guarded')}: kept`,
        'Service typo: kept',
      ].sort(),
    );
    expect(s.kept.find((k) => k.kind === 'Service')?.reason).toContain('unreadable TTL, kept (never guessed)');
    expect(s.kept.find((k) => k.kind === 'Namespace')?.reason).toContain('a protected namespace (PROTECTED_NAMESPACES): never deleted');
    // The kind this cluster does not serve is said, and the others were read.
    expect(s.unavailable).toEqual([{ kind: 'example.com/v1/Widget', why: 'example.com/v1 is not served by this cluster' }]);
    const ns1 = s.results.find((r) => r.decision.kind === 'Namespace')!;
    expect(ns1.decision.reason).toMatch(/from annotation janitor\/ttl \(2h after creation\); it holds 0 pods, 0 Jobs and 1 PersistentVolumeClaims$/);
    for (const [kind, name] of [
      ['Namespace', nsName('expired')],
      ['Deployment', 'web'],
      ['ConfigMap', 'old-config'],
    ] as const)
      expect(await present(kind, name), `${kind} ${name} still there`).toBe(true);
  }, 60_000);

  it('delete mode removes the expired ones only: the not-yet-expired, the unreadable and the protected stay', async () => {
    mode = 'delete';
    const s = await pass();
    expect(s.results.map((r) => `${r.decision.kind} ${r.decision.name}: ${r.outcome}`).sort()).toEqual(
      ['ConfigMap old-config: deleted', 'Deployment web: deleted', `Namespace ${nsName('expired')}: deleted`].sort(),
    );
    for (const [kind, name] of [
      ['Namespace', nsName('expired')],
      ['Deployment', 'web'],
      ['ConfigMap', 'old-config'],
    ] as const)
      await waitFor(`${kind} ${name} gone or going`, async () => ((await present(kind, name)) ? undefined : true));
    for (const [kind, name] of [
      ['Namespace', nsName('fresh')],
      ['Namespace', nsName('guarded')],
      ['ConfigMap', 'new-config'],
      ['Service', 'typo'],
    ] as const)
      expect(await present(kind, name), `${kind} ${name} stays`).toBe(true);
  }, 90_000);

  it('a protected namespace is refused by the writer itself, whatever a decision says', async () => {
    const clients = kubeClients(kc());
    try {
      const writer = new ClusterWriter(clients, { dryRun: false, recordEvents: false, protectedNamespaces: [nsName('guarded')] });
      const guarded = (await core().readNamespace({ name: nsName('guarded') })).metadata!;
      const namespaces = { group: '', version: 'v1', plural: 'namespaces' };
      const id = { name: guarded.name!, uid: guarded.uid!, resourceVersion: guarded.resourceVersion! };
      await expect(writer.deleteAsRead(namespaces, id, testTicket())).rejects.toThrow(/namespace .*-guarded is protected/);
    } finally {
      clients.close();
    }
    expect(await present('Namespace', nsName('guarded'))).toBe(true);
  });
});

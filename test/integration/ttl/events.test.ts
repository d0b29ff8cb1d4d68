// The Kubernetes Events of TTL on any kind are bounded (issue 47): a pass that deletes many
// objects of one kind in one namespace writes one Event on the first and one that counts the
// rest (an events.k8s.io/v1 series about the namespace, through the process's series as the
// runtime's writer has it), not one per object; one object alone still gets its own Event.
// On the real control plane, through the one writer.
import { CoreV1Api, EventsV1Api, RbacAuthorizationV1Api, type EventsV1Event } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PodEventSeries } from '../../../shared/kube/event-series.js';
import { REPORTING_CONTROLLER } from '../../../shared/model/keys.js';
import { runObjectsPass } from '../../../shared/objects/index.js';
import { sharedCluster } from '../../harness/index.js';
import { objectsSuite } from '../objects/handle.js';

const { ns, handle, clients } = objectsSuite('ttl-events');
const kc = () => sharedCluster().kubeConfig();
const core = () => kc().makeApiClient(CoreV1Api);
const MANY = 40;
/** A second namespace holding one expired ConfigMap. */
const lone = () => `${ns.name}-lone`;

const rule = () => ({
  name: 'expired-configs',
  mode: 'delete',
  kinds: [{ version: 'v1', kind: 'ConfigMap' }],
  sources: ['cleanup.kyverno.io/ttl'],
  namespaces: { include: [ns.name, lone()] },
});
const expired = { 'cleanup.kyverno.io/ttl': '2020-01-01' };

const ours = async (namespace: string): Promise<EventsV1Event[]> =>
  (await kc().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace })).items.filter((e) => e.reportingController === REPORTING_CONTROLLER);

beforeAll(async () => {
  await core().createNamespace({ body: { metadata: { name: lone() } } });
  await core().createNamespacedConfigMap({ namespace: lone(), body: { metadata: { name: 'only-one', labels: expired } } });
  for (let i = 0; i < MANY; i += 10)
    await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        core().createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: `cm-${i + k}`, labels: expired } } }),
      ),
    );
}, 60_000);

afterAll(async () => {
  await core()
    .deleteNamespace({ name: lone() })
    .catch(() => undefined);
});

describe('TTL on any kind: Events', () => {
  it(`a pass deleting ${MANY} ConfigMaps in a namespace writes two Events there (one of its own, one that counts), and one alone its own`, async () => {
    // The process's series as the runtime builds it (a window of a minute), over the test's clients.
    const series = new PodEventSeries({
      events: clients().events,
      now: Date.now,
      instance: 'ttl-events-test',
      windowMs: 60_000,
      intervalMs: 60_000,
      named: 5,
      log: pino({ level: 'silent' }),
    });
    const h = handle({ policy: () => ({ kubeTidy: { ttl: [rule()] } }), series });
    const s = await runObjectsPass(h.handle, { origin: 'sweep', dryRun: false });
    expect(s.results.filter((r) => r.outcome === 'deleted')).toHaveLength(MANY + 1);
    // What the process writes at the window's end or when it stops.
    await series.drain(30_000);

    const many = await ours(ns.name);
    expect(many.map((e) => e.reason).sort()).toEqual(['Deleted', 'ObjectsDeleted']);
    const own = many.find((e) => e.reason === 'Deleted')!;
    expect(own.regarding?.kind).toBe('ConfigMap');
    const counted = many.find((e) => e.reason === 'ObjectsDeleted')!;
    expect(counted.regarding).toMatchObject({ kind: 'Namespace', name: ns.name });
    expect(counted.series?.count).toBe(MANY);
    expect(counted.note).toMatch(
      /^kube-tidy deleted objects of kind ConfigMap in this namespace as rule expired-configs selected them: cm-\d+ \(with an Event of its own\), (cm-\d+, ){4}cm-\d+ and more\./,
    );

    const alone = await ours(lone());
    expect(alone.map((e) => `${e.reason} ${e.regarding?.kind} ${e.regarding?.name}`)).toEqual(['Deleted ConfigMap only-one']);
  }, 90_000);

  it('a deleted Namespace and a deleted cluster-scoped object each have their Event in default (the namespace itself is terminating and refuses it)', async () => {
    const gone = `${ns.name}-gone`;
    const role = `${ns.name}-role`;
    const mine = { ...expired, 'kube-tidy.test/events': ns.name };
    await core().createNamespace({ body: { metadata: { name: gone, labels: mine } } });
    await kc()
      .makeApiClient(RbacAuthorizationV1Api)
      .createClusterRole({ body: { metadata: { name: role, labels: mine } } });
    const h = handle({
      policy: () => ({
        kubeTidy: {
          ttl: [
            {
              name: 'expired-cluster-scoped',
              mode: 'delete',
              kinds: [
                { version: 'v1', kind: 'Namespace' },
                { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' },
              ],
              sources: ['cleanup.kyverno.io/ttl'],
              // Only this test's own, on the shared cluster.
              labelSelector: { matchLabels: { 'kube-tidy.test/events': ns.name } },
            },
          ],
        },
      }),
    });
    const s = await runObjectsPass(h.handle, { origin: 'sweep', dryRun: false });
    expect(
      s.results
        .filter((r) => r.outcome === 'deleted')
        .map((r) => `${r.decision.kind} ${r.decision.name}`)
        .sort(),
    ).toEqual(expect.arrayContaining([`ClusterRole ${role}`, `Namespace ${gone}`]));
    const told = (await ours('default')).filter((e) => e.regarding?.name === gone || e.regarding?.name === role);
    expect(told.map((e) => `${e.reason} ${e.regarding?.kind} ${e.regarding?.name}`).sort()).toEqual([
      `Deleted ClusterRole ${role}`,
      `Deleted Namespace ${gone}`,
    ]);
    expect(told.every((e) => !e.regarding?.namespace)).toBe(true);
  }, 90_000);
});

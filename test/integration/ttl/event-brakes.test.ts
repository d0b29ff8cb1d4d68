// A rate on Namespaces holds on the event path too, across instances: `{max: 1, per: 10m, kinds:
// [Namespace]}`, two objectUpdated instances over one ledger (two replicas' BRAKES_NAMESPACE),
// each sent the event of an expired Namespace (Kyverno's label, 1 s): the first is deleted at its
// event, the second is deferred by the other instance's spending and stays (the sweep's pass
// proves the same in brakes-namespaces.test.ts).
import { CoreV1Api, type V1Namespace } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { objectUpdated } from '../../../functions/object-updated.js';
import { httpMessage, toApiServerSourceEvent, type KubeObject } from '../../../shared/cloudevents/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { serveParts } from '../due/setup.js';
import { runtimeFor, send } from '../functions/setup.js';

const ns = testNamespace('ttl-ev-brakes');
const kc = () => sharedCluster().kubeConfig();
const core = () => kc().makeApiClient(CoreV1Api);
const names = () => [`${ns.name}-a`, `${ns.name}-b`];

const policy = () =>
  policyDoc([{ name: 'RemoveFailedPods', args: { namespaces: { include: ['nothing-here'] } } }], {
    top: {
      kubeTidy: {
        brakes: { rates: [{ max: 1, per: '10m', kinds: ['Namespace'] }] },
        ttl: [{ name: 'namespaces', mode: 'delete', kinds: [{ version: 'v1', kind: 'Namespace' }], namespaces: { include: names() } }],
      },
    },
  });

const alive = (name: string) =>
  core()
    .readNamespace({ name })
    .then(
      (n) => !n.metadata?.deletionTimestamp,
      () => false,
    );

afterAll(async () => {
  for (const name of names())
    await core()
      .deleteNamespace({ name })
      .catch(() => undefined);
});

describe('a rate with kinds: [Namespace], on the event path', () => {
  it('lets one expired Namespace go at its event and defers the other instance’s', async () => {
    const env = { DRY_RUN: 'false', BRAKES_NAMESPACE: `${ns.name}-ledger`, DUE_NAMESPACE: `${ns.name}-due` };
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const rt = await runtimeFor(policy(), env);
        const parts = await objectUpdated.setup(rt);
        return { parts, agent: serveParts(objectUpdated, parts, rt) };
      }),
    );
    try {
      const made: V1Namespace[] = [];
      for (const name of names()) made.push(await core().createNamespace({ body: { metadata: { name, labels: { 'cleanup.kyverno.io/ttl': '1s' } } } }));
      const latest = Math.max(...made.map((n) => new Date(n.metadata!.creationTimestamp!).getTime()));
      await waitFor('past their 1 s ttl', async () => (Date.now() > latest + 1_500 ? true : undefined), { intervalMs: 100 });
      const event = (n: V1Namespace) =>
        httpMessage(
          toApiServerSourceEvent(
            'update',
            JSON.parse(JSON.stringify({ ...n, apiVersion: 'v1', kind: 'Namespace' })) as KubeObject,
            kc().getCurrentCluster()!.server,
          ),
          'binary',
        );
      const one = await send(instances[0]!.agent, event(made[0]!));
      expect(one.status, JSON.stringify(one.body)).toBe(200);
      expect(one.body).toMatchObject({ outcome: 'deleted', object: `Namespace ${names()[0]}` });
      const two = await send(instances[1]!.agent, event(made[1]!));
      expect(two.status, JSON.stringify(two.body)).toBe(200);
      expect(two.body).toMatchObject({ outcome: 'deferred' });
      expect(JSON.stringify(two.body)).toContain('kubeTidy.brakes.rates[0]');
      expect(await alive(names()[0]!)).toBe(false);
      expect(await alive(names()[1]!), 'the deferred Namespace stays').toBe(true);
    } finally {
      for (const i of instances) i.parts.stop();
    }
  }, 90_000);
});

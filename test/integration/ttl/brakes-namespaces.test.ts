// A rate on Namespaces holds across instances: `{max: 1, per: 10m, kinds: [Namespace]}`, two
// processes (two handles, each its own Brakes over the one ledger ConfigMap, as two replicas
// share it), each with an expired Namespace to delete: the first goes, the second is deferred
// by the other instance's spending, and stays. The pods' budget is not what holds it (the pods'
// total of 0 stops no Namespace).
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runObjectsPass, type ObjectsHandle } from '../../../shared/objects/index.js';
import { sharedCluster } from '../../harness/index.js';
import { objectsSuite, type TestHandle } from '../objects/handle.js';

const { ns, handle } = objectsSuite('ttl-brakes');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const names = () => [`${ns.name}-a`, `${ns.name}-b`];
const policy = () => ({
  maxNoOfPodsToEvictTotal: 0,
  kubeTidy: {
    brakes: { rates: [{ max: 1, per: '10m', kinds: ['Namespace'] }] },
    ttl: [{ name: 'namespaces', mode: 'delete', kinds: [{ version: 'v1', kind: 'Namespace' }], namespaces: { include: names() } }],
  },
});

let first: TestHandle;
let second: TestHandle;
/** The pass as three hours from now: a `janitor/ttl: 2h` namespace is expired. */
const later = (h: TestHandle): ObjectsHandle => ({ ...h.handle, now: () => Date.now() + 3 * 3_600_000 });
const alive = (name: string) =>
  core()
    .readNamespace({ name })
    .then(
      (n) => !n.metadata?.deletionTimestamp,
      () => false,
    );

beforeAll(async () => {
  first = handle({ policy });
  second = handle({ policy });
  for (const name of names()) await core().createNamespace({ body: { metadata: { name, annotations: { 'janitor/ttl': '2h' } } } });
});

afterAll(async () => {
  for (const name of names())
    await core()
      .deleteNamespace({ name })
      .catch(() => undefined);
});

describe('a rate with kinds: [Namespace]', () => {
  it('lets one Namespace go in its window and defers the other instance’s', async () => {
    const [a, b] = names() as [string, string];
    const one = await runObjectsPass(later(first), { origin: 'sweep', dryRun: false, namespaces: [a] });
    expect(one.results.map((r) => `${r.decision.name}: ${r.outcome}`)).toEqual([`${a}: deleted`]);
    const two = await runObjectsPass(later(second), { origin: 'sweep', dryRun: false, namespaces: [b] });
    expect(two.results.map((r) => `${r.decision.name}: ${r.outcome}`)).toEqual([`${b}: deferred`]);
    expect(two.results[0]!.message).toContain('kubeTidy.brakes.rates[0]');
    expect(await alive(a)).toBe(false);
    expect(await alive(b), 'the deferred Namespace stays').toBe(true);
  }, 90_000);
});

// What a ttl rule lists (issue 47, the listing's cost): when every rule naming a kind honours
// Kyverno's label alone, the API server chooses the candidates (labelSelector
// cleanup.kyverno.io/ttl) and the pass decides what it decided on the whole list; a rule that
// honours kube-janitor's keys, which are annotations first and cannot be selected on the
// server, lists every object. On the real control plane.
import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ObjectPageQuery } from '../../../shared/kube/direct-objects.js';
import { runObjectsPass, type ObjectsHandle } from '../../../shared/objects/index.js';
import { sharedCluster } from '../../harness/index.js';
import { objectsSuite } from '../objects/handle.js';

const { ns, handle } = objectsSuite('ttl-list');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);

const rule = (sources?: string[]) => ({
  name: 'configs',
  mode: 'report',
  kinds: [{ version: 'v1', kind: 'ConfigMap' }],
  namespaces: { include: [ns.name] },
  ...(sources ? { sources } : {}),
});

/** A pass of `ttlRule`, with the query of every ConfigMap LIST page it sent. */
async function pass(ttlRule: object) {
  const h = handle({ policy: () => ({ kubeTidy: { ttl: [ttlRule] } }) }).handle;
  const queries: ObjectPageQuery[] = [];
  const reads = h.reader.objectReads;
  const reader = {
    ...h.reader,
    objectReads: {
      ...reads,
      discover: reads.discover.bind(reads),
      get: reads.get.bind(reads),
      list: <T>(r: Parameters<typeof reads.list>[0], namespace: string | undefined, page: ObjectPageQuery) => {
        if (r.plural === 'configmaps') queries.push(page);
        return reads.list<T>(r, namespace, page);
      },
    },
  };
  const s = await runObjectsPass({ ...h, reader } as ObjectsHandle, { origin: 'sweep', dryRun: false });
  return { reported: s.results.map((r) => r.decision.name).sort(), queries };
}

beforeAll(async () => {
  const cm = (name: string, meta: object) => core().createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name, ...meta } } });
  await cm('kyverno', { labels: { 'cleanup.kyverno.io/ttl': '2020-01-01' } });
  await cm('janitor', { annotations: { 'janitor/expires': '2020-01-01' } });
  await cm('plain', {});
});

describe('TTL on any kind: what a rule lists', () => {
  it("a rule that honours Kyverno's label alone lists by that label on the server, and decides the same", async () => {
    const { reported, queries } = await pass(rule(['cleanup.kyverno.io/ttl']));
    expect(reported).toEqual(['kyverno']);
    expect(queries.length).toBeGreaterThan(0);
    expect(queries.every((q) => q.labelSelector === 'cleanup.kyverno.io/ttl')).toBe(true);
  });

  it("a rule that honours kube-janitor's annotations (the default sources) lists every object", async () => {
    const { reported, queries } = await pass(rule());
    expect(reported).toEqual(['janitor', 'kyverno']);
    expect(queries.every((q) => q.labelSelector === undefined)).toBe(true);
  });
});

// listPods pages through the real API server with limit/continue, one request a page (as the
// client counts them: kube/request-tally.ts), passes selectors through, and hands over pods
// the core can read, through both listers: client-node's (typed objects, Date times) and the
// direct one a pass reads its pages with (kube/direct-pods.ts: the wire's JSON, string times).
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { getPod, listPods, type ListPodsOptions, type PodPage } from '../../../shared/kube/index.js';
import type { PodLister } from '../../../shared/kube/list.js';
import type { PodReader } from '../../../shared/kube/get.js';
import { kubeClients } from '../../../shared/kube/clients.js';
import { tallied } from '../../../shared/kube/request-tally.js';
import { isTerminal } from '../../../shared/model/pod.js';
import { secondsSince } from '../../../shared/model/time.js';
import type { Pod } from '../../../shared/model/objects.js';
import { makePod } from './fixtures.js';

const ns = testNamespace('kube-list');
const core = sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
/** kube-tidy's clients, whose middleware counts each request sent into the open tally. */
const clients = kubeClients(sharedCluster().kubeConfig());
afterAll(() => clients.close());

// Five pods: three fail, two succeed, so the field selector has something to leave out.
const endings = [
  { name: 'p-0', exitCode: 1, phase: 'Failed' },
  { name: 'p-1', exitCode: 0, phase: 'Succeeded' },
  { name: 'p-2', exitCode: 2, phase: 'Failed' },
  { name: 'p-3', exitCode: 0, phase: 'Succeeded' },
  { name: 'p-4', exitCode: 137, phase: 'Failed' },
];

beforeAll(async () => {
  await Promise.all(endings.map(({ name, exitCode, phase }) => makePod(core, ns.name, name, { exitCode, phase, labels: { set: 'list' } })));
});

async function collect(lister: PodLister, opts: ListPodsOptions): Promise<PodPage[]> {
  const pages: PodPage[] = [];
  for await (const page of listPods(lister, opts)) pages.push(page);
  return pages;
}

/** The pages, and with each the requests sent so far. */
const counted = (lister: PodLister, opts: ListPodsOptions): Promise<{ page: PodPage; sent: number }[]> =>
  tallied(async (t) => {
    const out: { page: PodPage; sent: number }[] = [];
    for await (const page of listPods(lister, opts)) out.push({ page, sent: t.sent });
    return out;
  });

/** A pod as plain JSON with every timestamp as epoch ms (a Date and its wire string compare equal). */
const normalised = (pod: Pod): unknown =>
  JSON.parse(JSON.stringify(pod), (_k, v: unknown) => (typeof v === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(v) ? Date.parse(v) : v));

const listers: [string, PodLister][] = [
  ['client-node', clients.core],
  ['direct', clients.podReads],
];

describe.each(listers)('listPods through %s', (via, lister) => {
  for (const row of [
    { sentence: 'limit 2 over 5 pods yields 3 pages in 3 requests', opts: { limit: 2 }, sizes: [2, 2, 1], names: endings.map((e) => e.name) },
    { sentence: 'the default limit yields all 5 pods in one page', opts: {}, sizes: [5], names: endings.map((e) => e.name) },
    {
      sentence: 'fieldSelector status.phase=Failed returns only the 3 Failed pods',
      opts: { fieldSelector: 'status.phase=Failed', limit: 2 },
      sizes: [2, 1],
      names: ['p-0', 'p-2', 'p-4'],
    },
    { sentence: 'a label selector matching nothing still yields one empty page', opts: { labelSelector: 'set=none' }, sizes: [0], names: [] },
  ])
    it(row.sentence, async () => {
      const { opts, sizes, names } = row;
      const seen = await counted(lister, { namespace: ns.name, ...opts });
      const pages = seen.map((s) => s.page);

      expect(pages.map((p) => p.items.length)).toEqual(sizes);
      expect(seen.map((s) => s.sent)).toEqual(sizes.map((_, i) => i + 1));
      expect(pages.every((p) => !p.inconsistent)).toBe(true);
      expect(pages.flatMap((p) => p.items.map((pod) => pod.metadata.name)).sort()).toEqual(names);
    });

  it('lists across all namespaces when no namespace is given, selectors applied', async () => {
    const pages = await collect(lister, { labelSelector: 'set=list', fieldSelector: 'status.phase=Succeeded', limit: 1 });
    const found = pages.flatMap((p) => p.items.map((pod) => `${pod.metadata.namespace}/${pod.metadata.name}`));
    // Other test files may run at the same time, but none labels pods set=list in this namespace.
    expect(found.filter((f) => f.startsWith(`${ns.name}/`)).sort()).toEqual([`${ns.name}/p-1`, `${ns.name}/p-3`]);
    expect(pages.length).toBeGreaterThanOrEqual(2);
  });

  it(`hands over pods with ${via === 'direct' ? "the wire's string" : 'Date'} timestamps that the core reads unchanged`, async () => {
    const [page] = await collect(lister, { namespace: ns.name, limit: 1 });
    const pod: Pod | undefined = page?.items[0];
    if (via === 'direct') expect(typeof pod?.metadata.creationTimestamp).toBe('string');
    else expect(pod?.metadata.creationTimestamp).toBeInstanceOf(Date);
    const age = secondsSince(pod?.metadata.creationTimestamp, Date.now());
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(600);
    expect(pod && isTerminal(pod)).toBe(true);
  });
});

it('both listers hand over the same pods: every field client-node decodes is on the direct pod with the same value', async () => {
  const [viaClientNode = [], viaDirect = []] = await Promise.all(
    listers.map(async ([, l]) => (await collect(l, { namespace: ns.name })).flatMap((p) => p.items)),
  );
  expect(viaDirect.map((p) => p.metadata.uid)).toEqual(viaClientNode.map((p) => p.metadata.uid));
  expect(viaDirect.length).toBe(endings.length);
  viaDirect.forEach((pod, i) => expect(normalised(pod)).toMatchObject(normalised(viaClientNode[i]!) as object));
});

const readers: [string, PodReader][] = [
  ['client-node', core],
  ['direct', clients.podReads],
];

describe.each(readers)('getPod through %s', (_via, reader) => {
  for (const row of [
    { sentence: 'an existing pod is returned', name: 'p-0', found: true },
    { sentence: 'a pod that does not exist is undefined, not an error', name: 'nope', found: false },
  ])
    it(row.sentence, async () => {
      const { name, found } = row;
      const pod = await getPod(reader, { namespace: ns.name, name });
      expect(pod?.metadata.name).toBe(found ? name : undefined);
    });
});

it('both readers hand over the same pod', async () => {
  const [viaClientNode, viaDirect] = await Promise.all(readers.map(([, r]) => getPod(r, { namespace: ns.name, name: 'p-2' })));
  expect(viaDirect?.metadata.uid).toBeDefined();
  expect(normalised(viaDirect!)).toMatchObject(normalised(viaClientNode!) as object);
});

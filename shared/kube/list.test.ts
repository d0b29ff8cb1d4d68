// The 410 path of listPods, which a test cluster cannot produce on demand (it needs etcd to
// compact the snapshot between two pages). A scripted lister stands in for the API server
// here only; the paging itself is tested against the real one in test/integration/kube.
import { ApiException, type CoreV1Api, type V1PodList } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { TransientKubeError } from './errors.js';
import { listPods, type PodLister, type PodPage } from './list.js';

type Reply = V1PodList | ApiException<string>;

const page = (names: string[], next?: string): V1PodList => ({ items: names.map((name) => ({ metadata: { name } })), metadata: { _continue: next } });
const expired = (token?: string) =>
  new ApiException(
    410,
    'x',
    JSON.stringify({ reason: 'Expired', message: 'The provided continue parameter is too old', ...(token ? { metadata: { continue: token } } : {}) }),
    {},
  );

function scripted(replies: Reply[]): { lister: PodLister; tokens: (string | undefined)[] } {
  const tokens: (string | undefined)[] = [];
  const next = async (params: { _continue?: string }) => {
    tokens.push(params._continue);
    const reply = replies.shift();
    if (!reply) throw new Error('no more replies');
    if (reply instanceof ApiException) throw reply;
    return reply;
  };
  return {
    lister: { listNamespacedPod: next, listPodForAllNamespaces: next } as unknown as Pick<CoreV1Api, 'listNamespacedPod' | 'listPodForAllNamespaces'>,
    tokens,
  };
}

async function collect(lister: PodLister): Promise<PodPage[]> {
  const pages: PodPage[] = [];
  for await (const p of listPods(lister, { namespace: 'ns', limit: 1 })) pages.push(p);
  return pages;
}

describe('listPods when a continue token expires', () => {
  it('goes on with the inconsistent token from the 410 and marks the pages after it', async () => {
    const { lister, tokens } = scripted([page(['a'], 't1'), expired('t1-inconsistent'), page(['b'], 't2'), page(['c'])]);
    const pages = await collect(lister);
    // Four requests (the 410 one of them) for three pages.
    expect(tokens).toEqual([undefined, 't1', 't1-inconsistent', 't2']);
    expect(pages.map((p) => [p.items[0]?.metadata.name, p.page, p.inconsistent])).toEqual([
      ['a', 1, false],
      ['b', 2, true],
      ['c', 3, true],
    ]);
  });

  for (const row of [
    { sentence: 'fails as transient when the 410 carries no token', replies: [page(['a'], 't1'), expired()] },
    { sentence: 'fails as transient after three 410s in a row', replies: [page(['a'], 't1'), expired('x'), expired('y'), expired('z'), expired('w')] },
    { sentence: 'fails as transient on a 410 for the first page, where there is nothing to continue', replies: [expired('x')] },
  ]) {
    it(row.sentence, async () => {
      const { lister } = scripted(row.replies);
      await expect(collect(lister)).rejects.toThrow(TransientKubeError);
    });
  }
});

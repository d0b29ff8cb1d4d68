import { describe, expect, it } from 'vitest';
import { decodeEvent } from './decode.js';
import { BadEventError } from './errors.js';
import { httpMessage } from './encode.js';
import { MAX_SHARD_PODS, shardDigest, shardEvent, type SweepShard } from './shard.js';

const pod = (i: number) => ({ namespace: 'ml', name: `p-${i}`, uid: `u-${i}` });
const shard = (over: Partial<SweepShard> = {}): SweepShard => ({ pass: 'abc-123', index: 1, of: 3, pods: [pod(1), pod(2)], ...over });
const decode = (data: unknown) => {
  const m = httpMessage(shardEvent(data as SweepShard, 'kube-tidy.dev/sweep/abc-123'));
  return decodeEvent({ headers: m.headers, body: m.body });
};
const problem = (data: unknown): string => {
  try {
    decode(data);
  } catch (e) {
    expect(e).toBeInstanceOf(BadEventError);
    expect((e as BadEventError).status).toBe(400);
    return (e as Error).message;
  }
  throw new Error('decoded');
};

describe('sweep shards on the wire', () => {
  it('round-trips through a CloudEvent with a stable id per pass and index', () => {
    const e = shardEvent(shard(), 'src');
    expect(e.id).toBe('abc-123-1');
    expect(decode(shard())).toMatchObject({ type: 'shard', shard: shard(), origin: { bridge: 'kube-tidy', transport: 'binary' } });
  });

  it.each([
    ['a name that is a path', { pods: [{ ...pod(1), name: '..' }] }, 'data.pods[0].name'],
    ['a namespace with a slash', { pods: [{ ...pod(1), namespace: 'a/b' }] }, 'data.pods[0].namespace'],
    ['a pod without uid', { pods: [{ namespace: 'ml', name: 'x' }] }, 'data.pods[0].uid'],
    ['an extra field claiming state', { pods: [{ ...pod(1), phase: 'Failed' }] }, 'data.pods[0]'],
    ['no pods', { pods: [] }, 'data.pods'],
    ['an index past the end', { index: 3, of: 3 }, 'data.index'],
    ['a pass id with uppercase', { pass: 'ABC' }, 'data.pass'],
  ])('refuses %s', (_what, over, path) => {
    expect(problem(shard(over as Partial<SweepShard>))).toContain(path);
  });

  it(`refuses more than ${MAX_SHARD_PODS} pods: a shard stays a bounded unit of work`, () => {
    expect(problem(shard({ pods: Array.from({ length: MAX_SHARD_PODS + 1 }, (_, i) => pod(i)) }))).toContain('data.pods');
  });

  it('digests the same shard the same way after a trip through the broker, and any change of pass, index, pod or order differently', () => {
    const d = shardDigest(shard());
    expect(shardDigest((decode(shard()) as { shard: SweepShard }).shard)).toBe(d);
    const changed = [
      shard({ pass: 'abc-124' }),
      shard({ index: 2 }),
      shard({ of: 4 }),
      shard({ pods: [pod(1)] }),
      shard({ pods: [pod(2), pod(1)] }),
      shard({ pods: [pod(1), { ...pod(2), uid: 'u-x' }] }),
    ];
    expect(new Set([d, ...changed.map(shardDigest)]).size).toBe(changed.length + 1);
  });
});

// In process, no HTTP: the watched object reaches the targets that take its kind as it is,
// any 5xx makes the event 503 (retried), and nothing reaches a target while the fence is shut.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../cloudevents/index.js';
import { createLogger } from '../../log.js';
import { Notifier } from '../../notify/notifier.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { Served } from '../server/setup.js';
import { defineTarget, type Input } from '../../serve/target.js';
import { inProcessDispatch } from './dispatch.js';
import { routesOf } from './routing.js';
import { MetricsRecorder } from '../../metrics/recorder.js';

const log = createLogger({ level: 'silent' });
const rt = { config: { REQUEST_DEADLINE_SECONDS: 5, DRY_RUN: true }, log, notifier: Notifier.off(), metrics: MetricsRecorder.off() } as unknown as Runtime;
const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'ml', uid: 'u1', resourceVersion: '7' } };

function target(name: string, kinds: string[], status: 'ok' | 'transient' = 'ok') {
  const seen: Input[] = [];
  const spec = defineTarget({
    name,
    accepts: { kinds, ticks: true, hint: '' },
    needs: { policy: false, cluster: 'on-demand' },
    setup: () => ({}),
    handle: async (input: Input) => (
      seen.push(input),
      status === 'ok' ? { outcome: 'done' } : { outcome: 'incomplete', failures: { transient: 1, refused: 0 } }
    ),
  });
  return { served: { spec, parts: {} } as Served, seen };
}

describe('in-process dispatch', () => {
  it('hands the watched object to every target taking its kind, and a tick to its target', async () => {
    const a = target('a', ['Pod']);
    const b = target('b', ['Pod', 'Job']);
    const c = target('c', ['Job']);
    const served = [a.served, b.served, c.served];
    const d = inProcessDispatch({ served, routes: routesOf(served), rt, log, holds: () => true });
    expect(await d.event('update', pod)).toEqual({ status: 200 });
    expect(a.seen).toMatchObject([{ type: 'object', namespace: 'ml', name: 'a', event: { verb: 'update', object: pod } }]);
    expect(b.seen).toHaveLength(1);
    expect(c.seen).toEqual([]);
    expect(await d.tick('c')).toEqual({ status: 200 });
    expect(c.seen).toMatchObject([{ type: 'tick' }]);
  });

  it('answers 503 when any target answers 5xx, so the bridge retries the event', async () => {
    const served = [target('a', ['Pod']).served, target('b', ['Pod'], 'transient').served];
    const d = inProcessDispatch({ served, routes: routesOf(served), rt, log, holds: () => true });
    expect(await d.event('update', pod)).toEqual({ status: 503 });
  });

  it('lets nothing reach a target while the Lease is not known to be held', async () => {
    const a = target('a', ['Pod']);
    const d = inProcessDispatch({ served: [a.served], routes: routesOf([a.served]), rt, log, holds: () => false });
    expect(await d.event('update', pod)).toEqual({ status: 503 });
    expect(await d.tick('a')).toEqual({ status: 503 });
    expect(a.seen).toEqual([]);
    expect(d.dropped()).toBe(2);
  });

  it('stops waiting for a handler once aborted (a replica that lost its Lease exits)', async () => {
    const slow = defineTarget({
      name: 'slow',
      accepts: { kinds: ['Pod'], hint: '' },
      needs: { policy: false, cluster: 'on-demand' },
      setup: () => ({}),
      handle: () => new Promise<never>(() => {}),
    });
    const served = [{ spec: slow, parts: {} } as Served];
    const d = inProcessDispatch({ served, routes: routesOf(served), rt, log, holds: () => true });
    const ac = new AbortController();
    const pending = d.event('update', pod, ac.signal);
    ac.abort();
    await expect(pending).resolves.toEqual({ error: 'aborted', timedOut: false });
  });
});

import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sweep } from '../../../functions/sweep.js';
import { ANNOTATIONS } from '../../../shared/evacuation/index.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { exists, knativeRequest, pingRequest, runPod, runtimeFor, send, serve, tidyEvents } from './setup.js';

// Issue 23: a pod its owner marked descheduler.alpha.kubernetes.io/request-evict-only is never
// evicted directly by pod cleanup while it runs (the descheduler's EvictionsInBackground
// contract): its evacuation is requested instead (the evacuation family's request annotation,
// which it follows: a live migration for KubeVirt), and the answer says so. A terminal pod
// with the mark is deleted as before; an unmarked running pod in the same run is evicted.

const ns = testNamespace('fn-evict-only');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);

// Running (and Failed) pods labelled reo=now in this file's namespace only; the evict
// annotation lets these bare pods past the evictor.
const policyFor = (namespace: string) =>
  policyDoc(
    [{ name: 'PodLifeTime', args: { states: ['Running', 'Failed'], labelSelector: { matchLabels: { reo: 'now' } }, namespaces: { include: [namespace] } } }],
    {
      evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
    },
  );
const EVICT = { 'descheduler.alpha.kubernetes.io/evict': 'true' };
const MARKED = { ...EVICT, [ANNOTATIONS.requestEvictOnly]: '' };
const labels = { reo: 'now' };

/** The pod as stored now: still there and not terminating, with what it carries. */
async function stillThere(name: string) {
  const p = await exists(core(), ns.name, name);
  expect(p, `${name} is still there`).toBeDefined();
  expect(p!.metadata?.deletionTimestamp, `${name} is not terminating`).toBeUndefined();
  return p!;
}
const gone = async (name: string) => {
  const p = await exists(core(), ns.name, name);
  return p === undefined || p.metadata?.deletionTimestamp !== undefined;
};

describe('a request-evict-only pod that cleanup would evict', () => {
  it('a sweep requests its evacuation instead of evicting it; an unmarked pod in the same pass is evicted, a marked Failed pod deleted', async () => {
    const marked = await runPod(core(), ns.name, 'sweep-marked', { labels, annotations: MARKED });
    await runPod(core(), ns.name, 'sweep-plain', { labels, annotations: EVICT });
    await runPod(core(), ns.name, 'sweep-marked-failed', { labels, annotations: MARKED, exitCode: 2 });
    const agent = serve(sweep, await runtimeFor(policyFor(ns.name)));

    const res = await send(agent, pingRequest());
    expect(res.status).toBe(200);
    const byName = Object.fromEntries((res.body.results as { name: string; outcome: string; action: string; message?: string }[]).map((r) => [r.name, r]));
    expect(byName['sweep-marked']).toMatchObject({ outcome: 'evacuation-requested', action: 'evict' });
    expect(byName['sweep-marked']!.message).toContain('request-evict-only');
    expect(byName['sweep-plain']).toMatchObject({ outcome: 'evicted', action: 'evict' });
    expect(byName['sweep-marked-failed']).toMatchObject({ outcome: 'deleted', action: 'delete' });
    expect(res.body.summary.outcomes).toEqual({ 'evacuation-requested': 1, evicted: 1, deleted: 1 });

    // Not evicted: still there, carrying the request the evacuation family follows, and an Event saying why.
    const after = await stillThere('sweep-marked');
    expect(after.metadata?.annotations?.[ANNOTATIONS.request]).toBe('strategy:PodLifeTime');
    expect((await tidyEvents(ns.name, marked.metadata!.uid!)).map((e) => [e.reason, e.type])).toEqual([['EvacuationRequested', 'Normal']]);
    expect(await gone('sweep-plain')).toBe(true);
    expect(await gone('sweep-marked-failed')).toBe(true);

    // The next pass asks nothing again: the evacuation is under way, nothing is written.
    const again = await send(agent, pingRequest());
    expect(again.body.summary.outcomes).toEqual({ evacuating: 1 });
    expect((await stillThere('sweep-marked')).metadata?.resourceVersion).toBe(after.metadata?.resourceVersion);
  });

  it('on the event path too: the answer says evacuation-requested, the pod stays; an unmarked pod is evicted', async () => {
    const agent = serve(podTerminated, await runtimeFor(policyFor(ns.name)));
    const marked = await runPod(core(), ns.name, 'event-marked', { labels, annotations: MARKED });
    const plain = await runPod(core(), ns.name, 'event-plain', { labels, annotations: EVICT });

    const res = await send(agent, knativeRequest('binary', 'update', marked));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'evacuation-requested', result: { strategy: 'PodLifeTime', action: 'evict', outcome: 'evacuation-requested' } });
    expect((await stillThere('event-marked')).metadata?.annotations?.[ANNOTATIONS.request]).toBe('strategy:PodLifeTime');

    const other = await send(agent, knativeRequest('binary', 'update', plain));
    expect(other.body.outcome).toBe('evicted');
    expect(await gone('event-plain')).toBe(true);

    // The update the request itself caused comes back as an event: nothing more is written.
    const echo = await send(agent, knativeRequest('binary', 'update', await stillThere('event-marked')));
    expect(echo.body.outcome).toBe('evacuating');
  });

  it('DRY_RUN writes nothing: the answer says what would happen, the pod carries no request', async () => {
    const agent = serve(podTerminated, await runtimeFor(policyFor(ns.name), { DRY_RUN: 'true' }));
    const marked = await runPod(core(), ns.name, 'dry-marked', { labels, annotations: MARKED });
    const res = await send(agent, knativeRequest('binary', 'update', marked));
    expect(res.body).toMatchObject({ outcome: 'evacuation-requested', result: { dryRun: true } });
    const after = await stillThere('dry-marked');
    expect(after.metadata?.annotations?.[ANNOTATIONS.request]).toBeUndefined();
    expect(after.metadata?.resourceVersion).toBe(marked.metadata?.resourceVersion);
    expect(await tidyEvents(ns.name, marked.metadata!.uid!)).toEqual([]);
  });
});

// recordPodEvent creates an events.k8s.io/v1 Event that names the pod by uid, so
// `kubectl events --for pod/<name>` shows which strategy acted and why.
import { CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { recordPodEvent, REPORTING_CONTROLLER, type PodEvent } from '../../../shared/kube/index.js';

const ns = testNamespace('kube-events');
const kc = sharedCluster().kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const events = kc.makeApiClient(EventsV1Api);

// Ours only: the scheduler records its own "Scheduled" event on the same pod.
async function eventsFor(uid: string) {
  const list = await events.listNamespacedEvent({ namespace: ns.name, fieldSelector: `regarding.uid=${uid}` });
  return list.items.filter((e) => e.reportingController === REPORTING_CONTROLLER);
}

describe('recordPodEvent', () => {
  for (const row of [
    {
      sentence: 'a Normal event is recorded on the pod with its reason, note and action',
      event: { reason: 'Deleted', note: 'PodLifeTime: Failed for 2h, more than 1h', type: 'Normal', action: 'Delete' } as PodEvent,
      note: 'PodLifeTime: Failed for 2h, more than 1h',
    },
    {
      sentence: 'a Warning event with a note over 1 KiB is recorded with the note shortened',
      event: { reason: 'EvictionBlocked', note: 'é'.repeat(800), type: 'Warning', action: 'Evict' } as PodEvent,
      note: expect.stringMatching(/^é+\.\.\.$/),
    },
  ])
    it(row.sentence, async () => {
      const { event, note } = row;
      const name = `ev-${event.reason.toLowerCase()}`;
      const pod = await core.createNamespacedPod({
        namespace: ns.name,
        body: { metadata: { name }, spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] } },
      });
      const uid = pod.metadata?.uid ?? '';

      const result = await recordPodEvent(events, { namespace: ns.name, name, uid }, event);

      expect(result, JSON.stringify(result)).toMatchObject({ recorded: true });
      const [stored, ...more] = await eventsFor(uid);
      expect(more).toHaveLength(0);
      expect(stored).toMatchObject({
        reason: event.reason,
        note,
        type: event.type,
        action: event.action,
        regarding: { kind: 'Pod', name, namespace: ns.name, uid },
      });
      expect(Buffer.byteLength(stored?.note ?? '')).toBeLessThanOrEqual(1024);
    });

  it('records nothing on a dry run', async () => {
    const uid = 'dry-run-uid';
    const result = await recordPodEvent(
      events,
      { namespace: ns.name, name: 'ghost', uid },
      { reason: 'Deleted', note: 'x', type: 'Normal', action: 'Delete' },
      { dryRun: true },
    );
    expect(result).toEqual({ recorded: false, skipped: 'dryRun' });
    expect(await eventsFor(uid)).toHaveLength(0);
  });

  it('returns a failure instead of throwing when the API server refuses the event', async () => {
    // Overlong fields are clipped before sending, so provoke the refusal with a namespace that does not exist.
    const result = await recordPodEvent(
      events,
      { namespace: 'no-such-namespace-here', name: 'p', uid: 'u' },
      { reason: 'Deleted', note: 'x', type: 'Normal', action: 'Delete' },
    );
    expect(result).toMatchObject({ recorded: false, error: { kind: 'not-found', status: 404 } });
  });
});

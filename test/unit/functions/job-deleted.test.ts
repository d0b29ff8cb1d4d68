// jobDeleted's answers before a worker is read. The watch takes every Job (the object rules
// need them), so jobDeleted is sent every Job's deletion: one never submitted to Kueue (no
// kueue.x-k8s.io/queue-name on the deleted object) has no MultiKueue copies and is answered
// 2xx nothing-to-do without reading the manager or any worker; a submitted one still cascades.
// The cascade itself is proven on three real control planes (test/integration/multikueue/).
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { jobDeleted } from '../../../functions/job-deleted.js';
import type { ObjectEvent, ObjectRef } from '../../../shared/cloudevents/index.js';
import type { KubeClients } from '../../../shared/kube/clients.js';
import type { ClusterWriter } from '../../../shared/kube/writer.js';
import { createLogger } from '../../../shared/log.js';
import { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import { BATCH_JOB, QUEUE_NAME_LABEL, readMultiKueueConfig, type MultiKueue, type Worker } from '../../../shared/multikueue/index.js';
import { Notifier } from '../../../shared/notify/notifier.js';
import { resolver, type ResolveContext } from '../../../shared/serve/resolve.js';

/** Every request any client would send, by path of the call (`custom.getNamespacedCustomObject`); each one fails. */
function recording(seen: string[], path = ''): unknown {
  return new Proxy(() => undefined, {
    get: (_t, prop) => recording(seen, path ? `${path}.${String(prop)}` : String(prop)),
    apply: () => {
      seen.push(path);
      return Promise.reject(new Error(`${path}: no cluster here`));
    },
  });
}

/** MultiKueue's parts with one worker: the manager's and the worker's clients record what is asked of them. */
function parts(seen: { lists: number; requests: string[] }): MultiKueue {
  const worker: Worker = { name: 'worker-1', api: recording(seen.requests) as KubeClients };
  const workers = {
    list: () => {
      seen.lists++;
      return Promise.resolve([worker]);
    },
    invalidate: () => undefined,
  };
  return {
    config: readMultiKueueConfig({}),
    manager: recording(seen.requests) as MultiKueue['manager'],
    workers: workers as unknown as MultiKueue['workers'],
    kinds: [BATCH_JOB],
    writer: () => ({ dryRun: false }) as ClusterWriter,
    sweepOptions: () => {
      throw new Error('not a sweep');
    },
    log: pino({ level: 'silent' }),
    notifier: Notifier.off(),
  };
}

const ctx = (): ResolveContext => ({
  log: createLogger({ env: {}, destination: { write: () => undefined } }),
  deadlineMs: 5_000,
  dryRun: false,
  policyError: () => undefined,
  notifier: Notifier.off(),
  metrics: MetricsRecorder.off(),
});

const deleted = (metadata: Record<string, unknown>): ObjectEvent => ({
  type: 'object',
  verb: 'delete',
  object: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'train', namespace: 'ml', uid: 'u1', resourceVersion: '7', ...metadata } },
  origin: { bridge: 'knative-apiserversource', transport: 'plain' },
});

describe('jobDeleted, for a Job Kueue never queued', () => {
  it.each([
    { sentence: 'a Job with no labels', metadata: {} },
    { sentence: 'a Job with other labels only', metadata: { labels: { app: 'train', 'kueue.x-k8s.io/queue-namex': 'q' } } },
    { sentence: 'a Job whose labels are not a map (a hostile copy)', metadata: { labels: 'kueue.x-k8s.io/queue-name' } },
  ])('$sentence: 2xx nothing-to-do with the reason, and neither the manager nor any worker is read', async ({ metadata }) => {
    const seen = { lists: 0, requests: [] as string[] };
    const out = await resolver(jobDeleted, parts(seen), ctx()).event(deleted(metadata));
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ outcome: 'nothing-to-do', job: 'ml/train', kind: 'batch/Job' });
    expect(JSON.stringify(out.body)).toContain(`no ${QUEUE_NAME_LABEL} label: never submitted to Kueue`);
    expect(seen).toEqual({ lists: 0, requests: [] });
  });
});

describe('jobDeleted, for a Job submitted to Kueue', () => {
  it.each([
    { sentence: 'the queue-name label', metadata: { labels: { [QUEUE_NAME_LABEL]: 'user-queue' } } },
    { sentence: 'the label with an empty value (presence is enough, as the old selector said)', metadata: { labels: { [QUEUE_NAME_LABEL]: '' } } },
    { sentence: "older Kueue's annotation of the same key", metadata: { annotations: { [QUEUE_NAME_LABEL]: 'user-queue' } } },
  ])('with $sentence, it still cascades: the worker is read', async ({ metadata }) => {
    const seen = { lists: 0, requests: [] as string[] };
    const out = await resolver(jobDeleted, parts(seen), ctx()).event(deleted(metadata));
    expect(seen.lists).toBe(1);
    expect(seen.requests).toEqual(['custom.getNamespacedCustomObject']);
    // This worker's client fails every request: the cascade says so (not nothing-to-do).
    expect(out.body).toMatchObject({ outcome: 'incomplete', workers: [{ worker: 'worker-1', outcome: 'failed' }] });
  });

  it('a Reference-mode deletion (no labels to read) cascades as before', async () => {
    const seen = { lists: 0, requests: [] as string[] };
    const ref: ObjectRef = { apiVersion: 'batch/v1', kind: 'Job', namespace: 'ml', name: 'train' };
    await resolver(jobDeleted, parts(seen), ctx()).input({
      type: 'reference',
      event: { type: 'reference', verb: 'delete', ref, origin: { bridge: 'knative-apiserversource', transport: 'plain' } },
    } as never);
    expect(seen.lists).toBe(1);
  });
});

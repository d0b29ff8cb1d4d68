// What objectUpdated reads for a finished Job's event (issue 45), on the real control plane.
// A Job no controller owns is decided on itself alone (no owner rule can group it with others):
// one GET of it, then its DELETE tied to that read, and nothing of its namespace listed, so a
// storm of finished Jobs in one namespace costs each event its own Job, not every Job there.
// A Job a controller owns is decided on its namespace as before: `keepLast: 1` keeps the newest
// of its owner's Jobs and removes the older, whichever event comes; its copy names the controller,
// so the namespace is read at once, with no GET of the Job first.
import { BatchV1Api, CoreV1Api, type V1Job } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { objectUpdated } from '../../../functions/object-updated.js';
import { httpMessage, toApiServerSourceEvent, type KubeObject } from '../../../shared/cloudevents/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { finishedJob, sharedCluster, testNamespace } from '../../harness/index.js';
import { countedRuntime, serveParts } from '../due/setup.js';
import { send } from '../functions/setup.js';
import { liveJob } from './fixtures.js';

const ns = testNamespace('objects-event-reads');
const kc = () => sharedCluster().kubeConfig();
const batch = () => kc().makeApiClient(BatchV1Api);
const core = () => kc().makeApiClient(CoreV1Api);

const policy = (namespace: string) =>
  policyDoc([{ name: 'RemoveFailedPods', args: { namespaces: { include: ['nothing-here'] } } }], {
    top: {
      kubeTidy: {
        objects: [
          {
            name: 'owned',
            kind: 'Job',
            minAge: '0s',
            mode: 'delete',
            keepLast: 1,
            namespaces: { include: [namespace] },
            labelSelector: { matchLabels: { set: 'owned' } },
          },
          { name: 'alone', kind: 'Job', minAge: '0s', mode: 'delete', namespaces: { include: [namespace] }, labelSelector: { matchLabels: { set: 'alone' } } },
        ],
      },
    },
  });

const event = (j: V1Job) =>
  httpMessage(
    toApiServerSourceEvent('update', JSON.parse(JSON.stringify({ ...j, apiVersion: 'batch/v1', kind: 'Job' })) as KubeObject, 'https://api'),
    'binary',
  );

const jobsPath = () => `/apis/batch/v1/namespaces/${ns.name}/jobs`;

describe("objectUpdated reads a finished Job's event", () => {
  it('a Job nothing owns: a GET of it and its DELETE, nothing of its namespace listed; the other finished Jobs there stay', async () => {
    const { rt, requests } = await countedRuntime(policy(ns.name), { DRY_RUN: 'false', DUE_NAMESPACE: `${ns.name}-due-a` });
    const parts = await objectUpdated.setup(rt);
    const agent = serveParts(objectUpdated, parts, rt);
    try {
      const [one, other] = await Promise.all([
        finishedJob(batch(), ns.name, 'alone-1', { labels: { set: 'alone' } }),
        finishedJob(batch(), ns.name, 'alone-2', { labels: { set: 'alone' } }),
      ]);
      const answer = await send(agent, event(one));
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body).toMatchObject({ outcome: 'deleted', uid: one.metadata!.uid });
      const jobs = requests.filter((r) => r.path.startsWith(jobsPath()));
      expect(jobs).toEqual([
        { method: 'GET', path: `${jobsPath()}/alone-1` },
        { method: 'DELETE', path: `${jobsPath()}/alone-1` },
      ]);
      expect(
        requests.filter((r) => r.path.endsWith('/cronjobs')),
        'no CronJob listed',
      ).toEqual([]);
      expect(await liveJob(batch(), ns.name, 'alone-2'), 'the other Job is not touched').toBe(other.metadata!.uid);
    } finally {
      parts.stop();
    }
  }, 180_000);

  it("a Job a controller owns is decided on its namespace: keepLast 1 keeps the newest of its owner's Jobs, the older goes", async () => {
    const { rt, requests } = await countedRuntime(policy(ns.name), { DRY_RUN: 'false', DUE_NAMESPACE: `${ns.name}-due-b` });
    const parts = await objectUpdated.setup(rt);
    const agent = serveParts(objectUpdated, parts, rt);
    try {
      // Any controller owner groups them (the garbage collector only needs it to exist): a ConfigMap here.
      const owner = await core().createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: 'owner' } } });
      const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, controller: true }];
      const older = await finishedJob(batch(), ns.name, 'owned-1', { labels: { set: 'owned' }, ownerReferences });
      const newer = await finishedJob(batch(), ns.name, 'owned-2', { labels: { set: 'owned' }, ownerReferences });
      const answers = [await send(agent, event(newer)), await send(agent, event(older))];
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const outcomes = answers.map((a) => a.body.outcome as string).sort();
      expect(outcomes, JSON.stringify(answers.map((a) => a.body))).toEqual(['deleted', 'kept']);
      const kept = answers.find((a) => a.body.outcome === 'kept')!;
      expect(kept.body.why).toMatch(/keepLast 1/);
      expect(
        requests.some((r) => r.method === 'GET' && r.path === jobsPath()),
        "the owner's Jobs were listed",
      ).toBe(true);
      expect(
        requests.filter((r) => r.method === 'GET' && r.path.startsWith(`${jobsPath()}/`)),
        'no GET of the Job before its namespace (its copy names a controller: the LIST reads it)',
      ).toEqual([]);
      const stayed = [await liveJob(batch(), ns.name, 'owned-1'), await liveJob(batch(), ns.name, 'owned-2')].filter(Boolean);
      expect(stayed).toHaveLength(1);
    } finally {
      parts.stop();
    }
  }, 180_000);
});

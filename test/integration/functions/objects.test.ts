// Cleanup beyond pods through the sweep and invoke, over HTTP on the real control plane: the
// same request that cleans pods runs the policy's object rules after them. A report rule
// removes nothing and says what it would; a delete rule removes, a Job with its pods; invoke
// plans through the API server's dry run unless it runs, confirmed, with the token.
import { BatchV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../../../functions/invoke.js';
import { sweep } from '../../../functions/sweep.js';
import { objectsHandle, runObjectsPass } from '../../../shared/objects/index.js';
import { finishedJob, installOpenReportsCrds, jobExists, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { policyDoc } from '../../fixtures/policy.js';
import { pingRequest, runtimeFor, send, serve } from './setup.js';

const ns = testNamespace('fn-objects');
const kc = () => sharedCluster().kubeConfig();
const batch = () => kc().makeApiClient(BatchV1Api);
const TOKEN = 'a-long-enough-test-token';

/** No pod rule selects anything here; the object rules are the test's. */
const policyWith = (objects: unknown[]) =>
  policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], namespaces: { include: [ns.name] } } }], { top: { kubeTidy: { objects } } });

const rule = (name: string, app: string, mode?: 'delete') => ({
  name,
  kind: 'Job',
  minAge: '0s',
  namespaces: { include: [ns.name] },
  labelSelector: { matchLabels: { app } },
  ...(mode ? { mode } : {}),
});

const podsOf = async (job: string) =>
  (
    await kc()
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: ns.name, labelSelector: `job-name=${job}` })
  ).items.length;

describe('the sweep runs the object rules after the pods', () => {
  beforeAll(async () => {
    // Its Reports are written where the OpenReports CRD is installed (shared/objects/io/step.ts).
    await installOpenReportsCrds(sharedCluster());
    await Promise.all([
      finishedJob(batch(), ns.name, 'told', { labels: { app: 'told' } }),
      finishedJob(batch(), ns.name, 'gone', { labels: { app: 'gone' }, exitCode: 3 }),
    ]);
  }, 120_000);

  it('reports the report rule’s Job and deletes the delete rule’s, with its pods', async () => {
    const agent = serve(sweep, await runtimeFor(policyWith([rule('report-told', 'told'), rule('delete-gone', 'gone', 'delete')])));
    const res = await send(agent, pingRequest());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.objects).toMatchObject({ rules: 2, outcomes: { reported: 1, deleted: 1 } });
    const byName = Object.fromEntries(res.body.objects.results.map((r: { name: string }) => [r.name, r]));
    expect(byName.told).toMatchObject({ kind: 'Job', rule: 'report-told', mode: 'report', outcome: 'reported' });
    expect(byName.told.reason).toMatch(/^report-told: Complete=True \(CompletionsReached\) for \d+s \(minAge 0s\)$/);
    expect(byName.gone).toMatchObject({ rule: 'delete-gone', mode: 'delete', outcome: 'deleted' });
    expect(await jobExists(batch(), ns.name, 'told')).toBe(true);
    await waitFor('the deleted Job and its pods gone', async () =>
      !(await jobExists(batch(), ns.name, 'gone')) && (await podsOf('gone')) === 0 ? true : undefined,
    );
    expect(await podsOf('told')).toBe(1);
    // The report rule's product: its Report in the namespace, one result naming the Job and why.
    const report = (await kc().makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'openreports.io',
      version: 'v1alpha1',
      plural: 'reports',
      namespace: ns.name,
      name: 'kube-tidy-objects.report-told',
    })) as {
      results: { policy: string; result: string; resources: { name: string }[] }[];
    };
    expect(report.results).toMatchObject([{ policy: 'report-told', result: 'fail', resources: [{ name: 'told' }] }]);
    expect(res.body.objects.reports.failures).toEqual({ transient: 0, refused: 0 });
  }, 120_000);
});

describe('the time budget', () => {
  it('starts no delete once it is spent: the decision is the next pass’s, counted, the Job untouched', async () => {
    await finishedJob(batch(), ns.name, 'late', { labels: { app: 'late' } });
    const rt = await runtimeFor(policyWith([rule('delete-late', 'late', 'delete')]));
    const summary = await runObjectsPass(objectsHandle(rt), { origin: 'sweep', dryRun: false, until: Date.now() - 1 });
    expect(summary).toMatchObject({ results: [], notStarted: 1 });
    expect(await jobExists(batch(), ns.name, 'late')).toBe(true);
  }, 120_000);
});

describe('a policy of object rules only', () => {
  it('loads without profiles, and the sweep reads no pod for it', async () => {
    const policy = { apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', profiles: [], kubeTidy: { objects: [rule('report-told', 'told')] } };
    const agent = serve(sweep, await runtimeFor(policy));
    const res = await send(agent, pingRequest());
    expect(res.status).toBe(200);
    expect(res.body.summary).toMatchObject({ pages: 0, podsSeen: 0 });
    expect(res.body.objects.results).toMatchObject([{ name: 'told', outcome: 'reported' }]);
  }, 60_000);
});

describe('invoke plans the object rules and runs them when asked', () => {
  beforeAll(async () => void (await finishedJob(batch(), ns.name, 'asked', { labels: { app: 'asked' } })), 120_000);

  it('plans by default: the delete is the API server’s dry run, the Job stays', async () => {
    const agent = serve(invoke, await runtimeFor(policyWith([rule('delete-asked', 'asked', 'delete')]), { INVOKE_TOKEN: TOKEN }));
    const res = await agent.post('/').send({ namespaces: [ns.name] });
    expect(res.status).toBe(200);
    expect(res.body.objects.results).toMatchObject([{ name: 'asked', outcome: 'deleted' }]);
    expect(res.body.dryRun).toBe(true);
    expect(await jobExists(batch(), ns.name, 'asked')).toBe(true);
  }, 60_000);

  it('runs with the token and confirm: the Job is deleted', async () => {
    const agent = serve(invoke, await runtimeFor(policyWith([rule('delete-asked', 'asked', 'delete')]), { INVOKE_TOKEN: TOKEN }));
    const res = await agent
      .post('/')
      .set('authorization', `Bearer ${TOKEN}`)
      .send({ mode: 'run', confirm: true, namespaces: [ns.name] });
    expect(res.status).toBe(200);
    expect(res.body.objects.results).toMatchObject([{ name: 'asked', outcome: 'deleted' }]);
    await waitFor('the Job gone', async () => ((await jobExists(batch(), ns.name, 'asked')) ? undefined : true));
  }, 60_000);

  it('a namespace outside the request is not read into the answer', async () => {
    const agent = serve(invoke, await runtimeFor(policyWith([rule('report-told', 'told')]), { INVOKE_TOKEN: TOKEN }));
    const res = await agent.post('/').send({ namespaces: ['default'] });
    expect(res.status).toBe(200);
    expect(res.body.objects).toMatchObject({ considered: expect.any(Number), results: [] });
  }, 60_000);
});

// An objects pass with a report rule on the real control plane, as a target runs it: a Job the
// Job controller finished, the pass (runObjectsPass), then its Reports (ObjectReports.write)
// read back as the API server stored them under the OpenReports CRDs of
// github.com/openreports/reports-api. The product of a report rule: one result naming the Job,
// the rule and its reason, one CloudEvent, and the Job still there. Then the two families'
// reports side by side: a pod profile named as the rule keeps its report when the rule's is
// replaced, and the rule's report goes when the rule has nothing left to say.
import { BatchV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReports, replaceReports, ReportCollector, reportName } from '../../../shared/cleanup/reports/index.js';
import { kubeClients, type KubeClients } from '../../../shared/kube/clients.js';
import { ReportWriter } from '../../../shared/kube/reports.js';
import { ClusterWriter } from '../../../shared/kube/writer.js';
import { createLogger } from '../../../shared/log.js';
import { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import { Notifier } from '../../../shared/notify/notifier.js';
import type { ObjectDecisionData, OutEvent } from '../../../shared/notify/types.js';
import { ObjectReports, runObjectsPass, type ObjectsHandle } from '../../../shared/objects/index.js';
import { objectReportName } from '../../../shared/objects/reports/index.js';
import type { Policy } from '../../../shared/policy/policy.js';
import { ObjectRuleSchema } from '../../../shared/policy/objects-schema.js';
import { finishedJob as harnessFinishedJob, installOpenReportsCrds, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';

const ns = testNamespace('objects-rep');
const kc = () => sharedCluster().kubeConfig();
const REPORTS = { group: 'openreports.io', version: 'v1alpha1', plural: 'reports' };
let clients: KubeClients;
const sent: OutEvent[] = [];

interface StoredReport {
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  summary: Record<string, number>;
  results?: {
    policy: string;
    rule: string;
    result: string;
    message: string;
    resources: { kind: string; name: string; uid?: string }[];
    properties: Record<string, string>;
  }[];
}

beforeAll(async () => {
  await installOpenReportsCrds(sharedCluster());
  clients = kubeClients(kc());
});
afterAll(() => clients.close());

function handle(): ObjectsHandle {
  const writer = (o: { dryRun: boolean }) => new ClusterWriter(clients, { dryRun: o.dryRun, recordEvents: false, protectedNamespaces: ['kube-system'] });
  return {
    settings: { protectedNamespaces: ['kube-system'], dryRun: false, concurrency: 4 },
    policy: () => ({ profiles: [], limits: {} }) as unknown as Policy,
    reader: clients,
    writer,
    // A report rule is never admitted: were it asked, the test fails.
    admission: () => ({
      admit: () => Promise.reject(new Error('a report rule asked the brakes')),
    }),
    now: Date.now,
    log: createLogger({ level: 'silent' }),
    notifier: Notifier.fromEnv({ EVENTS_SINK: 'http://127.0.0.1:9/' }, Date.now, async (e) => void sent.push(e)),
    metrics: MetricsRecorder.off(),
  };
}

const read = (name: string) => clients.custom.getNamespacedCustomObject({ ...REPORTS, namespace: ns.name, name }) as Promise<StoredReport>;
const absent = (name: string) =>
  read(name).then(
    () => false,
    () => true,
  );

const finishedJob = async (name: string): Promise<string> => (await harnessFinishedJob(kc().makeApiClient(BatchV1Api), ns.name, name)).metadata!.uid!;

describe('a report rule on a finished Job', () => {
  it('writes one result naming the Job, the rule and its reason, sends one event, and removes nothing; its report is its own', async () => {
    const h = handle();
    const rule = ObjectRuleSchema.parse({ name: `rep-${ns.name.slice(-6)}`, kind: 'Job', minAge: '0s', namespaces: { include: [ns.name] } });
    expect(rule.mode).toBe('report');
    const uid = await finishedJob('finished');
    const reports = new ObjectReports({ rules: [rule], origin: 'sweep', protectedNamespaces: ['kube-system'], namespaces: [ns.name] });

    const summary = await runObjectsPass(h, { origin: 'sweep', dryRun: false, rules: [rule] });
    expect(summary.results.map((r) => [r.decision.name, r.outcome])).toEqual([['finished', 'reported']]);
    const written = await reports.write(h.writer({ dryRun: false }).reportsClient, summary, h.now());
    expect(written).toEqual({ written: 1, deleted: 0, failures: { transient: 0, refused: 0 } });

    const stored = await read(objectReportName(rule.name));
    expect(stored.summary).toMatchObject({ fail: 1, error: 0, skip: 0 });
    expect(stored.results).toHaveLength(1);
    const [result] = stored.results!;
    expect(result!.policy).toBe(rule.name);
    expect(result!.rule).toBe(rule.name);
    expect(result!.result).toBe('fail');
    expect(result!.resources).toEqual([{ apiVersion: 'batch/v1', kind: 'Job', namespace: ns.name, name: 'finished', uid }]);
    expect(result!.message).toMatch(
      new RegExp(`^would remove Job ${ns.name}/finished: ${rule.name}: Complete=True \\(CompletionsReached\\) for \\d+s \\(minAge 0s\\)$`),
    );
    expect(result!.properties).toMatchObject({
      mode: 'report',
      outcome: 'reported',
      dryRun: 'false',
      origin: 'sweep',
      condition: 'Complete=True (CompletionsReached)',
    });

    // The Job is still there: a report rule removes nothing.
    const job = await kc().makeApiClient(BatchV1Api).readNamespacedJob({ namespace: ns.name, name: 'finished' });
    expect(job.metadata?.uid).toBe(uid);
    expect(job.metadata?.deletionTimestamp).toBeUndefined();

    await h.notifier.flush(2_000);
    const events = sent.filter((e) => (e.data as ObjectDecisionData).rule === rule.name);
    expect(events.map((e) => [e.type, e.subject, e.extensions?.outcome])).toEqual([
      ['dev.kube-tidy.object.decided.v1', `namespaces/${ns.name}/jobs/finished`, 'reported'],
    ]);

    // A pod profile named as the rule, in the same namespace, reports beside it: replacing one never touches the other.
    const pods = new ReportCollector({ profileOf: () => rule.name, protectedNamespaces: [] });
    pods.kept({ namespace: ns.name, name: 'some-pod', strategy: 'PodLifeTime', profile: rule.name, reason: 'a limit' });
    const podWriter = new ReportWriter(kc().makeApiClient(CustomObjectsApi), []);
    await replaceReports(podWriter, buildReports(pods.contents(), { pass: 'p', mode: 'plan', now: Date.now() }), {
      profiles: [rule.name],
      namespaces: [ns.name],
    });
    expect((await read(objectReportName(rule.name))).results).toHaveLength(1);
    // The pod profile's pass with nothing to say deletes its own report only.
    await replaceReports(podWriter, [], { profiles: [rule.name], namespaces: [ns.name] });
    expect(await absent(reportName(rule.name))).toBe(true);
    expect((await read(objectReportName(rule.name))).results).toHaveLength(1);

    // The Job gone, the rule has nothing to say here: its report is deleted, not left stale.
    await kc().makeApiClient(BatchV1Api).deleteNamespacedJob({ namespace: ns.name, name: 'finished', propagationPolicy: 'Background' });
    await waitFor(
      'the Job gone',
      () =>
        kc()
          .makeApiClient(BatchV1Api)
          .readNamespacedJob({ namespace: ns.name, name: 'finished' })
          .then(
            () => undefined,
            () => true,
          ),
      { timeoutMs: 60_000 },
    );
    const after = await runObjectsPass(h, { origin: 'sweep', dryRun: false, rules: [rule] });
    expect(after.results).toEqual([]);
    expect(await reports.write(h.writer({ dryRun: false }).reportsClient, after, h.now())).toEqual({
      written: 0,
      deleted: 1,
      failures: { transient: 0, refused: 0 },
    });
    expect(await absent(objectReportName(rule.name))).toBe(true);
  }, 180_000);
});

// The standalone program's Event series at stop (shared/hosts/standalone/main.ts): it watches
// pods, removes the Failed pods of a Job as their events arrive, counts all but the first into
// one series about the Job (window and interval longer than the test, so only the stop writes
// it), and on SIGTERM writes that series before it gives up its Lease.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchV1Api, CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { policyDoc } from '../../fixtures/policy.js';
import { EXIT_CODE_ANNOTATION, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { startStandalone, type Standalone } from '../helm/standalone-process.js';

const ns = testNamespace('sa-series');
const kc = sharedCluster().kubeConfig();
const procs: Standalone[] = [];

afterAll(() => {
  for (const p of procs) p.child.kill('SIGKILL');
});

const tidyAbout = async (uid: string) =>
  (await kc.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns.name, fieldSelector: `regarding.uid=${uid}` })).items.filter(
    (e) => e.reportingController === 'kube-tidy.dev/kube-tidy',
  );

describe('standalone: Event series at stop', () => {
  it('a replica stopped by SIGTERM writes the series it counted (3 Failed pods of a Job) before it exits', async () => {
    const policy = join(mkdtempSync(join(tmpdir(), 'kube-tidy-sa-series-')), 'policy.json');
    writeFileSync(
      policy,
      JSON.stringify(policyDoc([{ name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: [3], namespaces: { include: [ns.name] } } }])),
    );
    const p = await startStandalone('series-a', {
      POLICY_FILE: policy,
      KUBECONFIG: sharedCluster().kubeconfigPath,
      POD_NAMESPACE: ns.name,
      KUBE_TIDY_NAMESPACE: ns.name,
      STANDALONE_FUNCTIONS: 'podTerminated',
      STANDALONE_SCHEDULES: '{}',
      STANDALONE_SELECTORS: JSON.stringify({ namespaces: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [ns.name] }] } }),
      LEASE_NAME: 'kube-tidy-series',
      SHUTDOWN_TIMEOUT_SECONDS: '10',
      EVENT_SERIES_WINDOW_SECONDS: '3600',
      EVENT_SERIES_INTERVAL_SECONDS: '600',
    });
    procs.push(p);
    const logs = () => p.log.join('').slice(-4000);
    await waitFor(
      'the replica to lead and watch pods',
      async () => ((await p.leader()) && p.log.join('').includes('watching from a fresh list')) || undefined,
      {
        timeoutMs: 60_000,
      },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${logs()}`);
    });

    const job = await kc.makeApiClient(BatchV1Api).createNamespacedJob({
      namespace: ns.name,
      body: {
        metadata: { name: 'burst' },
        spec: {
          completionMode: 'Indexed',
          completions: 3,
          parallelism: 3,
          backoffLimitPerIndex: 0,
          template: {
            metadata: { annotations: { [EXIT_CODE_ANNOTATION]: '3' } },
            spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
          },
        },
      },
    });
    const core = kc.makeApiClient(CoreV1Api);
    await waitFor(
      "the Job's 3 pods failed and removed",
      async () => {
        const left = await core.listNamespacedPod({ namespace: ns.name, labelSelector: 'batch.kubernetes.io/job-name=burst' });
        return (await kc.makeApiClient(BatchV1Api).readNamespacedJob({ namespace: ns.name, name: 'burst' })).status?.failed === 3 && left.items.length === 0;
      },
      { timeoutMs: 120_000 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${logs()}`);
    });
    // Counted, not written: the interval is 10 minutes.
    expect(await tidyAbout(job.metadata!.uid!)).toEqual([]);

    p.child.kill('SIGTERM');

    expect(await p.exited, logs()).toBe(0);
    expect((await tidyAbout(job.metadata!.uid!)).map((e) => [e.reason, e.series?.count])).toEqual([['PodsDeleted', 3]]);
  }, 240_000);
});

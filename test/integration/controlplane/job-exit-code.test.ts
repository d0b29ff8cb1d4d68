// Job pods run on a kwok node and end the way the test chose, through the
// kwok.kube-tidy.dev/exit-code annotation: the shape the exit-code strategies read.
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { job, podsOf } from './fixtures.js';

const ns = testNamespace('exitcode');
const kc = sharedCluster().kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const batch = kc.makeApiClient(BatchV1Api);

describe('a Job pod on a kwok node', () => {
  for (const row of [
    {
      sentence: 'ends Failed with exit code 3 and reason Error',
      exitCode: 3,
      reason: undefined,
      phase: 'Failed',
      shownReason: 'Error',
      jobCondition: 'Failed',
    },
    {
      sentence: 'ends Failed with exit code 137 and the chosen reason OOMKilled',
      exitCode: 137,
      reason: 'OOMKilled',
      phase: 'Failed',
      shownReason: 'OOMKilled',
      jobCondition: 'Failed',
    },
    {
      sentence: 'ends Succeeded with exit code 0 and reason Completed',
      exitCode: 0,
      reason: undefined,
      phase: 'Succeeded',
      shownReason: 'Completed',
      jobCondition: 'Complete',
    },
  ]) {
    it(row.sentence, async () => {
      const { exitCode, reason, phase, shownReason, jobCondition } = row;
      const name = `exit-${exitCode}`;
      await batch.createNamespacedJob({ namespace: ns.name, body: job(name, { exitCode, reason }) });
      const [finished] = await waitFor(`the pod of ${name} to end ${phase}`, async () => {
        const pods = await podsOf(core, ns.name, `job-name=${name}`);
        return pods.length === 1 && pods[0]?.status?.phase === phase && pods;
      });

      expect(finished?.spec?.nodeName).toMatch(/^kwok-/);
      const terminated = finished?.status?.containerStatuses?.[0]?.state?.terminated;
      expect(terminated?.exitCode).toBe(exitCode);
      expect(terminated?.reason).toBe(shownReason);
      await waitFor(`Job ${name} condition ${jobCondition}`, async () => {
        const conditions = (await batch.readNamespacedJob({ name, namespace: ns.name })).status?.conditions ?? [];
        return conditions.some((c) => c.type === jobCondition && c.status === 'True');
      });
    });
  }
});

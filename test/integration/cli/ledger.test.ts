// A person's `kube-tidy run` charges the deployed kube-tidy's ledger (issue 33). A deployment
// in namespace "ops" (here a test namespace: the chart installs the policy and keeps the ledger
// there) removes 3 pods under maxNoOfPodsToEvictTotal 5; a run with the deployed policy then
// removes 2, not 5, and says which ledger it charged. --brakes-namespace names another.
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { runAsync } from '../../../shared/hosts/cli/main.js';
import { used, normalize } from '../../../shared/brakes/core/ledger.js';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { core, failedPolicy, makePods, podNames, range, storedLedger, windowWithRoom } from '../brakes/helpers.js';
import { knativeRequest, runtimeFor, send, serve } from '../functions/setup.js';

const ns = testNamespace('cli-ledger');
const ops = testNamespace('cli-ledger-ops');
const other = testNamespace('cli-ledger-other');
const runtimes: Runtime[] = [];
let pods: V1Pod[];

/** The deployed policy, this file's namespace, JSON lines. */
const deployed = () => ['--kubeconfig', sharedCluster().kubeconfigPath, '--policy-configmap', `${ops.name}/kube-tidy-policy`, '-n', ns.name, '-o', 'json'];

async function cli(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runAsync(args, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  pods = await makePods(ns.name, range('failed', 10), { exitCode: 137 });
}, 120_000);
afterAll(() => {
  for (const rt of runtimes) rt.brakes().close();
});

describe("the ledger a person's run charges", () => {
  it("is the deployed kube-tidy's, beside its policy: 3 removed by the deployment, 2 by the run, under a cap of 5", async () => {
    const { top } = windowWithRoom(120_000);
    const policy = failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 5, ...top });
    await core().createNamespacedConfigMap({
      namespace: ops.name,
      body: { metadata: { name: 'kube-tidy-policy' }, data: { 'policy.yaml': stringify(policy) } },
    });
    const rt = await runtimeFor(policy, { BRAKES_NAMESPACE: ops.name });
    runtimes.push(rt);
    const agent = serve(podTerminated, rt);
    for (const p of pods.slice(0, 3)) expect((await send(agent, knativeRequest('binary', 'update', p))).body.outcome).toBe('deleted');
    await rt.brakes().settle();

    const ran = await cli('run', '--yes', ...deployed());
    expect(ran.stderr).toMatch(new RegExp(`brakes: charging the ledger ${ops.name}/kube-tidy-brakes \\((the one in the cluster|beside the policy)`));
    const outcomes = ran.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).outcome as string);
    expect(outcomes.filter((o) => o === 'deleted')).toHaveLength(2);
    // The rest are held back by the budget (a pass stops starting writes once the cluster's is spent).
    expect(outcomes.filter((o) => o !== 'deleted' && o !== 'deferred')).toEqual([]);
    expect(await podNames(ns.name)).toHaveLength(5);
    const ledger = normalize(await storedLedger(ops.name), Date.now());
    const counter = Object.keys(ledger.counts).find((c) => c.startsWith('cluster|'))!;
    expect(used(ledger, counter)).toBe(5);
  });

  it('is the one --brakes-namespace names, said on stderr; a plan writes none', async () => {
    const plan = await cli('plan', ...deployed(), '--brakes-namespace', other.name);
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain(`brakes: charging the ledger ${other.name}/kube-tidy-brakes (--brakes-namespace)`);
    // A fresh ledger: the plan would remove up to the cap, and writes no ledger.
    expect(
      plan.stdout
        .trim()
        .split('\n')
        .filter((l) => JSON.parse(l).outcome === 'deleted'),
    ).toHaveLength(5);
    await expect(core().readNamespacedConfigMap({ namespace: other.name, name: 'kube-tidy-brakes' })).rejects.toThrow();
  });

  it('a bad --brakes-namespace is invalid input (exit 2)', async () => {
    const bad = await cli('run', '--yes', '--kubeconfig', sharedCluster().kubeconfigPath, '--brakes-namespace', 'Not_A_Namespace');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--brakes-namespace "Not_A_Namespace" is not a namespace name');
  });
});

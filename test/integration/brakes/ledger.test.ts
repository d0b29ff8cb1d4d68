// Where the ledger lives, and when it is not written. DRY_RUN never writes it (nor creates its
// namespace) but defers within the process as a run would; invoke's plan writes nothing
// either. A missing ledger namespace is created with the ledger; an identity that may not
// create it gets a 500 naming the ledger, and the pod is not removed: never without limits.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { AuthorizationV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../../../functions/invoke.js';
import { podTerminated } from '../../../functions/pod-terminated.js';
import { sweep } from '../../../functions/sweep.js';
import type { V1Pod } from '@kubernetes/client-node';
import { BRAKES_NAME } from '../../../shared/brakes/io/store.js';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { sharedAudit, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { writeKubeconfig } from '../../harness/credentials.js';
import { knativeRequest, pingRequest, runtimeFor, send, serve } from '../functions/setup.js';
import { core, failedPolicy, makePods, podNames, range, storedLedger, windowEnd, windowWithRoom } from './helpers.js';

const ns = testNamespace('brakes-ledger');
const TOKEN = 'a-long-enough-test-token';
const fresh = (what: string) => `brakes-${what}-${randomBytes(3).toString('hex')}`;
const created: string[] = [];
const runtimes: Runtime[] = [];
let pods: Map<string, V1Pod>;

const namespaceExists = (name: string) =>
  core()
    .readNamespace({ name })
    .then(
      () => true,
      () => false,
    );
async function start(policy: unknown, env: Record<string, string>) {
  const rt = await runtimeFor(policy, env);
  runtimes.push(rt);
  return rt;
}
const event = (agent: ReturnType<typeof serve>, name: string) => send(agent, knativeRequest('binary', 'update', pods.get(name)!));

beforeAll(async () => {
  const made = await makePods(ns.name, [...range('dry', 4), 'new-0', 'none-0'], { exitCode: 137 });
  pods = new Map(made.map((p) => [p.metadata!.name!, p]));
}, 120_000);
afterAll(async () => {
  for (const rt of runtimes) rt.brakes().close();
  for (const name of created)
    await core()
      .deleteNamespace({ name })
      .catch(() => undefined);
});

describe('DRY_RUN and plans', () => {
  it('DRY_RUN defers within the process as a run would, and never writes the ledger nor creates its namespace', async () => {
    const { top, windowMs } = windowWithRoom(60_000);
    const home = fresh('dry');
    created.push(home);
    const audit = sharedAudit();
    const mark = audit.mark();
    const rt = await start(failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 2, ...top }), { DRY_RUN: 'true', BRAKES_NAMESPACE: home });
    const agent = serve(podTerminated, rt);
    const answers = [];
    for (const name of range('dry', 4)) answers.push((await event(agent, name)).body);
    expect(answers.map((a) => [a.outcome, a.result?.dryRun ?? a.deferred?.budget])).toEqual([
      ['deleted', true],
      ['deleted', true],
      ['deferred', 'maxNoOfPodsToEvictTotal'],
      ['deferred', 'maxNoOfPodsToEvictTotal'],
    ]);
    expect(answers[3].deferred.freesAt).toBe(windowEnd(Date.now(), windowMs));
    // A dry sweep in the same process sees the same spending: held back, stopped by the budget.
    const swept = await send(serve(sweep, rt), pingRequest());
    expect(swept.status).toBe(200);
    expect(swept.body.summary).toMatchObject({
      dryRun: true,
      outcomes: { deferred: 2 },
      stoppedBy: 'budget',
      brakes: { byBudget: { maxNoOfPodsToEvictTotal: 2 } },
    });
    await rt.brakes().settle();

    // invoke's plan in a process that runs for real: a plan writes no ledger either.
    const planHome = fresh('plan');
    created.push(planHome);
    const planner = await start(failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 2, ...top }), { BRAKES_NAMESPACE: planHome, INVOKE_TOKEN: TOKEN });
    const plan = await serve(invoke, planner)
      .post('/')
      .send({ namespaces: [ns.name] });
    expect(plan.status).toBe(200);
    expect(plan.body).toMatchObject({ outcome: 'planned', dryRun: true });
    expect(plan.body.summary.outcomes.deleted).toBe(2);

    // (Other files' ledgers are written meanwhile: only these two namespaces are this test's.)
    const writes = (await audit.settledSince(mark)).filter((w) => w.namespace === home || w.name === home || w.namespace === planHome || w.name === planHome);
    expect(writes).toEqual([]);
    expect(await namespaceExists(home)).toBe(false);
    expect(await namespaceExists(planHome)).toBe(false);
    expect((await podNames(ns.name)).filter((n) => n.startsWith('dry-'))).toEqual(range('dry', 4));
  });
});

describe('a ledger namespace that does not exist', () => {
  it('is created, with the ledger, when the identity may (the admin here)', async () => {
    const home = fresh('new');
    created.push(home);
    const rt = await start(failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 5 }), { BRAKES_NAMESPACE: home });
    const res = await event(serve(podTerminated, rt), 'new-0');
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('deleted');
    expect(await namespaceExists(home)).toBe(true);
    await rt.brakes().settle();
    expect(Object.values((await storedLedger(home)).counts)).toEqual([1]);
  });

  describe('with an identity that may write the ledger anywhere but not create a namespace', () => {
    const role = () => `kube-tidy-test-${ns.name}-no-namespaces`;
    let kubeconfig: string;

    beforeAll(async () => {
      const kc = sharedCluster().kubeConfig();
      const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
      await core().createNamespacedServiceAccount({ namespace: ns.name, body: { metadata: { name: 'no-namespaces' } } });
      await rbac.createClusterRole({
        body: {
          metadata: { name: role() },
          rules: [
            { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'delete'] },
            { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
            { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update'] },
            { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create'] },
          ],
        },
      });
      await rbac.createClusterRoleBinding({
        body: {
          metadata: { name: role() },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role() },
          subjects: [{ kind: 'ServiceAccount', name: 'no-namespaces', namespace: ns.name }],
        },
      });
      const token = await core().createNamespacedServiceAccountToken({
        namespace: ns.name,
        name: 'no-namespaces',
        body: { spec: { expirationSeconds: 3600, audiences: [] } },
      });
      const cluster = kc.getCurrentCluster()!;
      kubeconfig = writeKubeconfig(
        join(mkdtempSync(join(tmpdir(), 'kube-tidy-no-ns-')), 'kubeconfig'),
        'no-namespaces',
        cluster.server,
        Buffer.from(cluster.caData ?? '', 'base64').toString('utf8'),
        token.status!.token,
      );
      const user = `system:serviceaccount:${ns.name}:no-namespaces`;
      const authz = kc.makeApiClient(AuthorizationV1Api);
      await waitFor('the role to take effect', async () => {
        const r = await authz.createSubjectAccessReview({
          body: {
            spec: {
              user,
              groups: ['system:serviceaccounts', 'system:authenticated'],
              resourceAttributes: { verb: 'delete', resource: 'pods', namespace: ns.name },
            },
          },
        });
        return r.status?.allowed === true;
      });
    });
    afterAll(async () => {
      const rbac = sharedCluster().kubeConfig().makeApiClient(RbacAuthorizationV1Api);
      await rbac.deleteClusterRoleBinding({ name: role() }).catch(() => undefined);
      await rbac.deleteClusterRole({ name: role() }).catch(() => undefined);
    });

    it('answers 500 naming the ledger, and removes nothing', async () => {
      const home = fresh('none');
      created.push(home);
      const rt = await start(failedPolicy([ns.name], { maxNoOfPodsToEvictTotal: 5 }), { BRAKES_NAMESPACE: home, KUBECONFIG: kubeconfig });
      const res = await event(serve(podTerminated, rt), 'none-0');
      expect(res.status).toBe(500);
      expect(res.body.error).toContain(`${home}/${BRAKES_NAME}`);
      expect(await namespaceExists(home)).toBe(false);
      expect(await podNames(ns.name)).toContain('none-0');
    });
  });
});

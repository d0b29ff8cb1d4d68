// TTL on any kind at expiry in the standalone program (issue 47 item 3), as the chart deploys it:
// the process (shared/hosts/standalone/main.ts) as a child process, under the chart's own RBAC
// for the mode (templates/standalone/rbac.yaml and templates/ttl-rbac.yaml with ttl.kinds), its
// policy the chart's ConfigMap, objectUpdated alone and no sweep. Once it leads, it watches the
// kinds the ttl rule names, found by discovery; a Deployment with `janitor/ttl` and a Namespace
// with `cleanup.kyverno.io/ttl`, made after that, stand until their expiry and go within BOUND_MS
// after it; the Deployment's entry is in its kind's due list meanwhile (the chart grants the list
// by name). Fails when the watch does not take the ttl kinds, when the event path does not time
// them, or when the chart's RBAC lacks get on the kinds or the due list's names.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, AuthorizationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenKubeconfig } from '../../harness/credentials.js';
import { kubectl, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { chartCopy, template } from '../helm/helm.js';
import { startStandalone, type Standalone } from '../helm/standalone-process.js';
import { previewsRule } from '../../fixtures/ttl-previews.js';

const home = testNamespace('ttl-sa');
const work = testNamespace('ttl-sa-work');
const kc = () => sharedCluster().kubeConfig();
const core = () => kc().makeApiClient(CoreV1Api);
const apps = () => kc().makeApiClient(AppsV1Api);
const release = `tsa${randomBytes(3).toString('hex')}`;
const mark = { 'kube-tidy.dev/ttl-standalone': release };
const TTL_S = 15;
/** As event-expiry.test.ts: a timer to the millisecond and a few requests, on a loaded machine; a poll's minute is far outside it. */
const BOUND_MS = 10_000;
const SKEW_MS = 250;
const made: string[] = [];
let proc: Standalone | undefined;
let chartFile = '';

const policy = {
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  profiles: [],
  kubeTidy: {
    ttl: [previewsRule({ matchLabels: mark })],
  },
};

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-ttl-standalone-'));
  writeFileSync(join(dir, 'policy.yaml'), JSON.stringify(policy));
  const set = {
    mode: 'standalone',
    'standalone.functions': '{objectUpdated}',
    'ttl.kinds[0].kind': 'Namespace',
    'ttl.kinds[1].group': 'apps',
    'ttl.kinds[1].kind': 'Deployment',
  };
  const shown = ['templates/standalone/rbac.yaml', 'templates/standalone/policy.yaml', 'templates/ttl-rbac.yaml'].flatMap((t) => ['--show-only', t]);
  const { text } = await template(chartCopy(), release, home.name, set, ['--set-file', `policy=${join(dir, 'policy.yaml')}`, ...shown]);
  chartFile = join(dir, 'chart.yaml');
  writeFileSync(chartFile, text);
  await kubectl(sharedCluster(), ['apply', '--server-side', '-f', chartFile]);
  const account = `${release}-standalone`;
  await waitFor('the ServiceAccount', () =>
    core()
      .readNamespacedServiceAccount({ name: account, namespace: home.name })
      .then(() => true),
  );
  const token = await core().createNamespacedServiceAccountToken({
    name: account,
    namespace: home.name,
    body: { spec: { expirationSeconds: 3600, audiences: [] } },
  });
  // RBAC takes effect in the API server's cache shortly after the apply.
  const authz = kc().makeApiClient(AuthorizationV1Api);
  const user = `system:serviceaccount:${home.name}:${account}`;
  await waitFor('the chart RBAC to take effect', async () =>
    (
      await authz.createSubjectAccessReview({
        body: { spec: { user, resourceAttributes: { verb: 'watch', resource: 'deployments', group: 'apps', namespace: work.name } } },
      })
    ).status?.allowed === true
      ? true
      : undefined,
  );
  const kubeconfig = tokenKubeconfig(kc(), join(dir, 'standalone.kubeconfig'), account, token.status!.token!);
  proc = await startStandalone(release, {
    KUBECONFIG: kubeconfig,
    POD_NAMESPACE: home.name,
    // As the chart's Deployment sets it: its ledger and due lists live in its own namespace.
    KUBE_TIDY_NAMESPACE: home.name,
    POLICY_CONFIGMAP: `${home.name}/kube-tidy-policy`,
    DRY_RUN: 'false',
    STANDALONE_FUNCTIONS: 'objectUpdated',
    // The chart's Lease, the one its RBAC names.
    LEASE_NAME: `${release}-standalone`,
    LEASE_DURATION_SECONDS: '4',
    LEASE_RENEW_DEADLINE_SECONDS: '3',
    LEASE_RETRY_PERIOD_SECONDS: '1',
    SHUTDOWN_TIMEOUT_SECONDS: '5',
  });
  // Leading, and both kinds' watches started (objects made before a watch starts send no event).
  await waitFor(
    'the process to lead and watch both ttl kinds',
    async () => (proc!.log.join('').split('"msg":"bridge started"').length - 1 >= 2 ? true : undefined),
    {
      timeoutMs: 60_000,
    },
  );
}, 120_000);

afterAll(async () => {
  if (process.env.TTL_SA_LOG) writeFileSync(process.env.TTL_SA_LOG, proc?.log.join('') ?? '');
  proc?.child.kill('SIGTERM');
  await proc?.exited;
  await Promise.all(
    made.map((name) =>
      core()
        .deleteNamespace({ name })
        .catch(() => undefined),
    ),
  );
  // The cluster-scoped objects the chart made (the namespaced ones go with their namespace).
  if (chartFile) await kubectl(sharedCluster(), ['delete', '--ignore-not-found', '-f', chartFile]).catch(() => undefined);
}, 60_000);

const expiryOf = (o: { metadata?: { creationTimestamp?: Date | string } }) => new Date(o.metadata!.creationTimestamp!).getTime() + TTL_S * 1000;

/** As event-expiry.test.ts: standing on every read answered before the expiry, then when it was first seen going. */
async function goneAfterExpiry(what: string, read: () => Promise<unknown>, expiry: number): Promise<number> {
  let judged = 0;
  for (;;) {
    const got = await read();
    if (Date.now() >= expiry - SKEW_MS) break;
    expect(got, `${what} went before its expiry`).toBeDefined();
    judged++;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(judged).toBeGreaterThan(0);
  return waitFor(`${what} going`, async () => ((await read()) ? undefined : Date.now()), { timeoutMs: 60_000 + TTL_S * 1000, intervalMs: 200 });
}

describe('the standalone program under the chart’s RBAC: a ttl kind goes at its expiry, by its watch, without a sweep', () => {
  it("a Deployment's janitor/ttl and a Namespace's cleanup.kyverno.io/ttl", async () => {
    const labels = { app: 'preview' };
    const d = await apps().createNamespacedDeployment({
      namespace: work.name,
      body: {
        metadata: { name: 'preview', labels: mark, annotations: { 'janitor/ttl': `${TTL_S}s` } },
        spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'pause' }] } } },
      },
    });
    const nsName = `${release}-preview`;
    made.push(nsName);
    const n = await core().createNamespace({ body: { metadata: { name: nsName, labels: { ...mark, 'cleanup.kyverno.io/ttl': `${TTL_S}s` } } } });
    const listed = async () => {
      const all: string[] = [];
      for (let s = 0; s < 4; s++) {
        const cm = await core()
          .readNamespacedConfigMap({ namespace: home.name, name: `kube-tidy-objects-due-ttl-deployment.apps-${s}` })
          .catch(() => undefined);
        all.push(...Object.keys(cm?.data ?? {}));
      }
      return all;
    };
    await waitFor('the Deployment in its kind’s due list', async () => ((await listed()).includes(d.metadata!.uid!) ? true : undefined), { timeoutMs: 10_000 });
    const standing = {
      d: () =>
        apps()
          .readNamespacedDeployment({ namespace: work.name, name: 'preview' })
          .then((x) => (x.metadata?.deletionTimestamp ? undefined : x))
          .catch(() => undefined),
      n: () =>
        core()
          .readNamespace({ name: nsName })
          .then((x) => (x.metadata?.deletionTimestamp ? undefined : x))
          .catch(() => undefined),
    };
    const [dAt, nAt] = await Promise.all([
      goneAfterExpiry('the Deployment', standing.d, expiryOf(d)),
      goneAfterExpiry('the Namespace', standing.n, expiryOf(n)),
    ]);
    expect(dAt - expiryOf(d), proc!.log.join('').slice(-3000)).toBeLessThanOrEqual(BOUND_MS);
    expect(nAt - expiryOf(n), proc!.log.join('').slice(-3000)).toBeLessThanOrEqual(BOUND_MS);
    expect(proc!.log.join('')).not.toContain('could not be written');
  }, 120_000);
});

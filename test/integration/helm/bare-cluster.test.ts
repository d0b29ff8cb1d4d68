// The README's two `helm install` commands, as written there but for the chart: the published
// oci://ghcr.io/kube-tidy/charts/kube-tidy at the version they name is replaced by what the
// release pushes there, the `helm package` of the tree's chart (which must be that version).
// With the real Helm on a cluster that has nothing but Kubernetes (no Knative, no Kueue, no kueue-system namespace):
// the shared clusters have the Kueue CRDs and namespaces, which is how a standalone install that
// wrote a Role into kueue-system passed its tests. Standalone installs and writes nothing
// outside its namespace; knative mode stops before writing anything, with one message naming
// what is missing and the standalone alternative. Then the same cluster gets Kueue (MultiKueue's
// Secret access follows on upgrade) and the Knative CRDs (knative mode installs).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, AuthorizationV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { installCrds, kubectl, upstreamCrdsDir, startCluster, waitFor, type Cluster } from '../../harness/index.js';
import { chartCopy, helm, type Obj } from './helm.js';

/** The `helm install` commands of the README's "Helm (either mode)" block, continuations joined. */
function readmeInstalls(): string[][] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^### Helm \(either mode\)$/m)[1]!.split(/^### /m)[0]!;
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('helm install '))
    .map((l) => l.split(/\s+/).slice(1));
}

const [knativeCmd, standaloneCmd] = (() => {
  const cmds = readmeInstalls();
  return [cmds.find((c) => !c.includes('mode=standalone'))!, cmds.find((c) => c.includes('mode=standalone'))!];
})();

/** Where the release publishes the chart (release.yml's CHART_REPO), as the README names it. */
const PUBLISHED = 'oci://ghcr.io/kube-tidy/charts/kube-tidy';
const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
let packaged: string;

/** A README command with the published chart at `--version V` replaced by the packaged one, after checking V is the tree's. */
function asPackaged(cmd: string[]): string[] {
  const i = cmd.indexOf(PUBLISHED);
  if (i < 0 || cmd[i + 1] !== '--version' || cmd[i + 2] !== version) throw new Error(`not ${PUBLISHED} --version ${version}: ${cmd.join(' ')}`);
  return [...cmd.slice(0, i), packaged, ...cmd.slice(i + 3)];
}

let cluster: Cluster;
const h = (args: string[]) => helm(args, { kubeconfig: cluster.kubeconfigPath, cwd: REPO_ROOT });
const status = (e: unknown) => (e as { code?: number; statusCode?: number }).code ?? (e as { statusCode?: number }).statusCode;
const exists = (read: () => Promise<unknown>) =>
  read().then(
    () => true,
    (e) => (status(e) === 404 ? false : Promise.reject(e)),
  );

beforeAll(async () => {
  const dest = mkdtempSync(join(tmpdir(), 'kube-tidy-chart-bare-'));
  await helm(['package', chartCopy(), '--destination', dest]);
  packaged = join(dest, `kube-tidy-${version}.tgz`);
  cluster = await startCluster({ name: 'helm-bare' });
}, 300_000);

afterAll(async () => {
  await cluster?.stop();
});

describe("the README's helm install on a cluster with nothing but Kubernetes", () => {
  it('reads both commands from the README', () => {
    expect(knativeCmd).toEqual(['install', 'kube-tidy', PUBLISHED, '--version', version, '-n', 'kube-tidy', '--create-namespace']);
    expect(standaloneCmd).toEqual([...knativeCmd!, '--set', 'mode=standalone', '--set', 'standalone.replicas=2']);
  });

  it('the cluster has no kueue-system namespace and serves neither Knative nor Kueue', async () => {
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    expect(await exists(() => core.readNamespace({ name: 'kueue-system' }))).toBe(false);
    const groups = JSON.parse(await kubectl(cluster, ['get', '--raw', '/apis'])) as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name).filter((n) => /knative|kueue/.test(n))).toEqual([]);
  });

  it('knative mode stops before writing anything, with one message naming what is missing and the standalone alternative', async () => {
    const err = await h(asPackaged(knativeCmd!)).then(
      () => undefined,
      (e: Error) => e.message,
    );
    console.log(`[helm-bare] knative mode: ${err}`);
    expect(err).toMatch(
      /mode=knative needs Knative Serving and Eventing, and this cluster does not serve serving\.knative\.dev\/v1\/Service, eventing\.knative\.dev\/v1\/Broker, eventing\.knative\.dev\/v1\/Trigger, sources\.knative\.dev\/v1\/ApiServerSource, sources\.knative\.dev\/v1\/PingSource/,
    );
    expect(err).toMatch(/--set mode=standalone/);
    expect(err).not.toMatch(/no matches for kind/);
    expect(err!.match(/Error:/g)).toHaveLength(1);
    // Nothing written: no release, no ClusterRole.
    expect((await h(['list', '-A', '-q'])).trim()).toBe('');
    const rbac = cluster.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
    expect((await rbac.listClusterRole()).items.filter((r) => r.metadata!.name!.startsWith('kube-tidy'))).toEqual([]);
  });

  it('standalone mode installs, writes nothing outside its namespace, and both replicas come up', async () => {
    const started = Date.now();
    const out = await h(asPackaged(standaloneCmd!));
    console.log(`[helm-bare] standalone install in ${Date.now() - started} ms`);
    expect(out).toMatch(/STATUS: deployed/);
    const manifest = parseAllDocuments(await h(['get', 'manifest', 'kube-tidy', '-n', 'kube-tidy']))
      .map((d) => d.toJS() as Obj | null)
      .filter((o): o is Obj => o !== null);
    expect(manifest.length).toBeGreaterThan(0);
    const namespaces = new Set(manifest.map((o) => o.metadata.namespace ?? '(cluster)'));
    expect([...namespaces].sort()).toEqual(['(cluster)', 'kube-tidy']);
    expect(
      manifest
        .filter((o) => !o.metadata.namespace)
        .map((o) => o.kind)
        .sort(),
    ).toEqual(['ClusterRole', 'ClusterRoleBinding']);
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    expect(await exists(() => core.readNamespace({ name: 'kueue-system' }))).toBe(false);
    const apps = cluster.kubeConfig().makeApiClient(AppsV1Api);
    const dep = await apps.readNamespacedDeployment({ name: 'kube-tidy-standalone', namespace: 'kube-tidy' });
    expect(dep.spec?.replicas).toBe(2);
    // kwok runs the pods (no container starts): the Deployment's pods are scheduled and Ready.
    await waitFor(
      '2 available replicas',
      async () => (await apps.readNamespacedDeployment({ name: 'kube-tidy-standalone', namespace: 'kube-tidy' })).status?.availableReplicas === 2,
      { timeoutMs: 60_000 },
    );
  });

  it('with Kueue installed later, an upgrade (multiKueue: auto) grants the Secret read in kueue-system', async () => {
    const authz = cluster.kubeConfig().makeApiClient(AuthorizationV1Api);
    const canRead = async () =>
      (
        await authz.createSubjectAccessReview({
          body: {
            spec: {
              user: 'system:serviceaccount:kube-tidy:kube-tidy-standalone',
              resourceAttributes: { verb: 'get', resource: 'secrets', namespace: 'kueue-system' },
            },
          },
        })
      ).status?.allowed === true;
    expect(await canRead()).toBe(false);
    await installCrds(cluster, upstreamCrdsDir('kueue'));
    await cluster
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: 'kueue-system' } } });
    await h(['upgrade', 'kube-tidy', packaged, '-n', 'kube-tidy', '--reuse-values']);
    await waitFor('the Secret read in kueue-system', canRead);
  });

  it('with the Knative CRDs installed, knative mode installs', async () => {
    await installCrds(cluster, upstreamCrdsDir('knative'));
    // A second release beside the standalone one (its own namespace and cluster-scoped prefix).
    const cmd = knativeCmd!.map((a) => (a === 'kube-tidy' ? 'kube-tidy-kn' : a));
    const out = await h(asPackaged(cmd));
    expect(out).toMatch(/STATUS: deployed/);
    const manifest = parseAllDocuments(await h(['get', 'manifest', 'kube-tidy-kn', '-n', 'kube-tidy-kn']))
      .map((d) => d.toJS() as Obj | null)
      .filter((o): o is Obj => o !== null);
    expect(manifest.map((o) => o.kind)).toEqual(expect.arrayContaining(['Service', 'Broker', 'Trigger', 'ApiServerSource', 'PingSource']));
  });
});

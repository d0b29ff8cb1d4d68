// The chart with the real Helm (v4, built from Go modules): lint and template in both modes,
// knative mode equal to the committed manifests object for object (and to renderKnative for
// other values), and every rendered object accepted by a server-side dry run on the shared
// control plane with the Knative CRDs installed. The `helm test` hooks: rendered here, run in
// release-test.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readDeclaration } from '../../../infra/declaration/declaration.js';
import { renderKnative } from '../../../infra/knative/render.js';
import { installCrds, kubectl, sharedCluster, upstreamCrdsDir, testNamespace } from '../../harness/index.js';
import { chartCopy, containersOf, helm, key, template, type Obj } from './helm.js';

const decl = readDeclaration();
const chart = chartCopy();
const ns = testNamespace('helm');
const cluster = sharedCluster();
/** Prometheus Operator kinds: their CRDs are not among the fetched upstream sets (infra/local/crds/sources.ts), so no dry run for them. */
const NO_CRD = new Set(['ServiceMonitor', 'PrometheusRule']);
const OBSERVABILITY = {
  'observability.serviceMonitor.enabled': 'true',
  'observability.prometheusRule.enabled': 'true',
  'observability.dashboard.enabled': 'true',
};

/** What a cluster with Kueue (and so MultiKueue's kinds) serves, for multiKueue: auto. */
const MULTIKUEUE_API = 'kueue.x-k8s.io/v1beta2/MultiKueueCluster';

const byKey = (objects: object[]) => new Map((objects as Obj[]).map((o) => [key(o), o]));
const annotationsOf = (o: Obj): Record<string, string> => (o.metadata as { annotations?: Record<string, string> }).annotations ?? {};

describe('helm lint', () => {
  for (const mode of ['knative', 'standalone']) {
    it(`passes in ${mode} mode, observability on`, async () => {
      const out = await helm([
        'lint',
        chart,
        '--strict',
        '--set',
        `mode=${mode}`,
        ...Object.entries(OBSERVABILITY).flatMap(([k, v]) => ['--set', `${k}=${v}`]),
      ]);
      expect(out).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    });
  }
  it('refuses a chart whose template is broken (the check can fail)', async () => {
    const broken = chartCopy();
    writeFileSync(join(broken, 'templates', 'broken.yaml'), '{{ if }}\n');
    await expect(helm(['lint', broken])).rejects.toThrow(/failed/);
  });
});

describe('helm template, knative mode', () => {
  it('renders infra/knative/manifests object for object (release kube-tidy in kube-tidy, createNamespace)', async () => {
    // The manifests carry MultiKueue's Role in kueue-system; the chart does when the cluster
    // serves MultiKueueCluster (multiKueue: auto), which `helm template` learns from --api-versions.
    const { objects } = await template(chart, 'kube-tidy', 'kube-tidy', { createNamespace: 'true' }, ['--api-versions', MULTIKUEUE_API]);
    const want = Object.values(renderKnative(decl)).flat();
    expect(byKey(objects)).toEqual(byKey(want));
  });

  it('renders nothing in kueueNamespace without MultiKueue (auto on a cluster without Kueue, or false), the rest as the manifests', async () => {
    const want = Object.values(renderKnative(decl))
      .flat()
      .filter((o) => (o as Obj).metadata.namespace !== 'kueue-system');
    for (const set of [{}, { multiKueue: 'false' }] as Record<string, string>[]) {
      const { objects } = await template(chart, 'kube-tidy', 'kube-tidy', { createNamespace: 'true', ...set });
      expect(byKey(objects)).toEqual(byKey(want));
    }
  });

  it('follows image, namespace, prefix, DRY_RUN, schedules, selectors and sender authentication from values', async () => {
    const set = {
      image: 'example.org/kt:9',
      namespace: 'tidy',
      clusterPrefix: 'tidy-a',
      kueueNamespace: 'kq',
      multiKueue: 'true',
      dryRun: 'false',
      senderAuth: 'none',
      'schedules.sweep': '*/5 * * * *',
      'selectors.Pod.matchLabels.team': 'ml',
      'selectors.Job.matchLabels.team': 'ml',
    };
    const { objects } = await template(chart, 'r', 'default', set);
    const d = structuredClone(decl);
    d.provider.senderAuth.knative = 'none';
    d.provider.environment.DRY_RUN = 'false';
    for (const e of d.functions.sweep!.events) if ('schedule' in e) e.schedule.cron = '*/5 * * * *';
    d.provider.sources.apiserver.resources[0]!.selector = { ...d.provider.sources.apiserver.resources[0]!.selector, matchLabels: { team: 'ml' } };
    // Job has no selector of its own (every Job by default): one set in values narrows it all the same.
    d.provider.sources.apiserver.resources.find((r) => r.kind === 'Job')!.selector = { matchLabels: { team: 'ml' } };
    const want = Object.entries(renderKnative(d, { namespace: 'tidy', kueueNamespace: 'kq', prefix: 'tidy-a', image: 'example.org/kt:9' }))
      .filter(([file]) => file !== '00-namespace.yaml')
      .flatMap(([, o]) => o);
    expect(byKey(objects)).toEqual(byKey(want));
  });

  it("watches every Job by default: the ApiServerSource's Jobs have no label selector (jobDeleted passes over those Kueue never queued)", async () => {
    const { objects } = await template(chart, 'kube-tidy', 'kube-tidy');
    const source = objects.find((o) => o.kind === 'ApiServerSource') as unknown as { spec: { resources: { kind: string }[] } };
    expect(source.spec.resources.filter((r) => r.kind === 'Job')).toEqual([{ apiVersion: 'batch/v1', kind: 'Job' }]);
  });

  it('renders no standalone object', async () => {
    const { objects } = await template(chart, 'kube-tidy', 'kube-tidy');
    expect(objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Lease')).toEqual([]);
  });

  it('sends the decisions where values.events says: the Broker by default, a URL, none, or another Broker through a SinkBinding', async () => {
    const sinks = (objects: Obj[]) =>
      [
        ...new Set(
          objects
            .filter((o) => o.kind === 'Service' && (o.metadata as { labels?: Record<string, string> }).labels?.['kube-tidy.dev/function'])
            .flatMap(
              (o) =>
                (o as unknown as { spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } } }).spec.template.spec.containers,
            )
            .map((c) => c.env.find((e) => e.name === 'EVENTS_SINK')?.value),
        ),
      ].sort();
    expect(sinks((await template(chart, 'kube-tidy', 'kube-tidy')).objects)).toEqual([
      'http://broker-ingress.knative-eventing.svc.cluster.local/kube-tidy/kube-tidy',
    ]);
    expect(sinks((await template(chart, 'kube-tidy', 'kube-tidy', { 'events.sink': 'https://hooks.example/kt' })).objects)).toEqual([
      'https://hooks.example/kt',
    ]);
    expect(sinks((await template(chart, 'kube-tidy', 'kube-tidy', { 'events.sink': 'none' })).objects)).toEqual(['none']);
    const bound = (await template(chart, 'kube-tidy', 'kube-tidy', { 'events.brokerRef.name': 'notify', 'events.brokerRef.namespace': 'ops' })).objects;
    expect(sinks(bound)).toEqual(['']);
    expect(bound.filter((o) => o.kind === 'SinkBinding')).toEqual([
      expect.objectContaining({
        spec: {
          subject: { apiVersion: 'serving.knative.dev/v1', kind: 'Service', selector: { matchLabels: { 'app.kubernetes.io/part-of': 'kube-tidy' } } },
          sink: { ref: { apiVersion: 'eventing.knative.dev/v1', kind: 'Broker', name: 'notify', namespace: 'ops' } },
        },
      }),
    ]);
    await expect(template(chart, 'kube-tidy', 'kube-tidy', { 'events.sink': 'broker.example' })).rejects.toThrow(/events.sink/);
  });
});

describe('helm template, standalone mode', () => {
  it('renders one Deployment, its account and roles, the policy, a Service and nothing of Knative', async () => {
    const { objects } = await template(chart, 'kube-tidy', 'kube-tidy', { mode: 'standalone' }, ['--skip-tests']);
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    // Nothing outside the release's namespace: kueue-system may not exist (issue 23).
    expect(objects.filter((o) => o.metadata.namespace !== undefined && o.metadata.namespace !== 'kube-tidy')).toEqual([]);
    const dep = objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { template: { spec: { containers: { env: { name: string; value?: string }[]; livenessProbe: unknown; readinessProbe: unknown }[] } } };
    };
    const c = dep.spec.template.spec.containers[0]!;
    expect(c.livenessProbe).toMatchObject({ httpGet: { path: '/healthz' } });
    expect(c.readinessProbe).toMatchObject({ httpGet: { path: '/readyz' } });
    const env = Object.fromEntries(c.env.map((e) => [e.name, e.value]));
    expect(JSON.parse(env.STANDALONE_SCHEDULES!)).toEqual({
      podTerminated: '* * * * *',
      sweep: '*/15 * * * *',
      // The objects' due lists' tick (docs/objects.md).
      objectUpdated: '* * * * *',
      orphanSweep: '*/10 * * * *',
      defrag: '*/2 * * * *',
      evacuation: '* * * * *',
    });
    expect(env.STANDALONE_FUNCTIONS).toBe('podTerminated,sweep,objectUpdated,jobDeleted,orphanSweep,defrag,evacuation');
    // Its watch takes the chart's selectors: every Job (none for Job), pods not opted out, namespaces but the system ones.
    expect(Object.keys(JSON.parse(env.STANDALONE_SELECTORS!)).sort()).toEqual(['Pod', 'namespaces']);
    // No Broker in standalone mode: decisions go out only to a URL given.
    expect(env.EVENTS_SINK).toBe('none');
    const withUrl = (await template(chart, 'kube-tidy', 'kube-tidy', { mode: 'standalone', 'events.sink': 'https://hooks.example/kt' }, ['--skip-tests']))
      .objects;
    const depEnv = (withUrl.find((o) => o.kind === 'Deployment') as unknown as typeof dep).spec.template.spec.containers[0]!.env;
    expect(depEnv.find((e) => e.name === 'EVENTS_SINK')?.value).toBe('https://hooks.example/kt');
  });

  it('with observability on: a ServiceMonitor for /metrics, the PrometheusRule from files/alerts.yaml, the dashboard ConfigMap', async () => {
    const { objects } = await template(chart, 'kube-tidy', 'kube-tidy', { mode: 'standalone', ...OBSERVABILITY });
    const sm = objects.find((o) => o.kind === 'ServiceMonitor') as unknown as { spec: { endpoints: { path: string }[] } };
    expect(sm.spec.endpoints[0]!.path).toBe('/metrics');
    expect((objects.find((o) => o.kind === 'PrometheusRule') as unknown as { spec: { groups: unknown[] } }).spec.groups.length).toBeGreaterThan(0);
    const dash = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-dashboard')) as unknown as {
      metadata: { labels: Record<string, string> };
      data: Record<string, string>;
    };
    expect(dash.metadata.labels.grafana_dashboard).toBe('1');
    expect(JSON.parse(dash.data['kube-tidy.json']!)).toHaveProperty('title');
  });
  it('grants the Secret read in kueueNamespace with MultiKueue: multiKueue=true, or auto where MultiKueueCluster is served; not without jobDeleted and orphanSweep', async () => {
    const inKueue = (objects: Obj[]) =>
      objects
        .filter((o) => o.metadata.namespace === 'kq')
        .map((o) => o.kind)
        .sort();
    expect(inKueue((await template(chart, 'kube-tidy', 'kube-tidy', { mode: 'standalone', kueueNamespace: 'kq', multiKueue: 'true' })).objects)).toEqual([
      'Role',
      'RoleBinding',
    ]);
    expect(
      inKueue((await template(chart, 'kube-tidy', 'kube-tidy', { mode: 'standalone', kueueNamespace: 'kq' }, ['--api-versions', MULTIKUEUE_API])).objects),
    ).toEqual(['Role', 'RoleBinding']);
    expect(
      inKueue(
        (await template(chart, 'kube-tidy', 'kube-tidy', { mode: 'standalone', kueueNamespace: 'kq', multiKueue: 'false' }, ['--api-versions', MULTIKUEUE_API]))
          .objects,
      ),
    ).toEqual([]);
    expect(
      inKueue(
        (
          await template(chart, 'kube-tidy', 'kube-tidy', {
            mode: 'standalone',
            kueueNamespace: 'kq',
            multiKueue: 'true',
            'standalone.functions': '{podTerminated,sweep}',
          })
        ).objects,
      ),
    ).toEqual([]);
  });

  it('renders the helm test hook: an account that may get the release Lease only, then a Pod of the chart image checking that Lease and the Service /metrics', async () => {
    const hooks = (
      await template(chart, 'r', 'ns1', { mode: 'standalone', clusterPrefix: 'p', image: 'example.org/kt:9', 'standalone.port': '9090' })
    ).objects.filter((o) => annotationsOf(o)['helm.sh/hook'] === 'test');
    expect(hooks.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'ServiceAccount/ns1/p-standalone-test',
      'Role/ns1/p-standalone-test',
      'RoleBinding/ns1/p-standalone-test',
      'Pod/ns1/p-standalone-test',
    ]);
    const annotations = hooks.map(annotationsOf);
    // The account first (lower weight); all deleted after a pass and before the next run.
    expect(annotations.map((a) => a['helm.sh/hook-weight'])).toEqual(['-1', '-1', '-1', '0']);
    expect(new Set(annotations.map((a) => a['helm.sh/hook-delete-policy']))).toEqual(new Set(['before-hook-creation,hook-succeeded']));
    expect((hooks[1] as unknown as { rules: unknown }).rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['p-standalone'], verbs: ['get'] },
    ]);
    const pod = hooks[3] as unknown as {
      spec: { serviceAccountName: string; restartPolicy: string; containers: { image: string; command: string[]; args: string[] }[] };
    };
    expect(pod.spec).toMatchObject({ serviceAccountName: 'p-standalone-test', restartPolicy: 'Never' });
    expect(pod.spec.containers[0]).toMatchObject({
      image: 'example.org/kt:9',
      command: ['node', 'release-check.cjs'],
      args: ['--lease', 'ns1/p-standalone', '--metrics-url', 'http://p-standalone.ns1.svc:9090/metrics'],
    });
  });

  it('knative mode renders no test hook (docs/deploying.md: why)', async () => {
    const { objects } = await template(chart, 'kube-tidy', 'kube-tidy');
    expect(objects.filter((o) => annotationsOf(o)['helm.sh/hook'])).toEqual([]);
  });

  it('refuses a mode or multiKueue it does not know, with one message', async () => {
    await expect(template(chart, 'kube-tidy', 'kube-tidy', { mode: 'standlone' })).rejects.toThrow(
      /mode is "standlone": use knative \(needs Knative Serving and Eventing\) or standalone/,
    );
    await expect(template(chart, 'kube-tidy', 'kube-tidy', { mode: 'standalone', multiKueue: 'yes' })).rejects.toThrow(
      /multiKueue is "yes": use auto, true or false/,
    );
  });
});

/** DRY_RUN of every container of kube-tidy's image the render holds (not the dead letters' event_display). */
const dryRunsOf = (objects: Obj[]): (string | undefined)[] =>
  containersOf(objects)
    .filter((c) => c.image.startsWith('ghcr.io/kube-tidy/kube-tidy:'))
    .map((c) => c.env?.find((e) => e.name === 'DRY_RUN')?.value);

describe('dry run by default (README: both modes start in dry run)', () => {
  for (const mode of ['knative', 'standalone']) {
    it(`${mode} mode: every container kube-tidy runs has DRY_RUN "true" unless dryRun=false is set`, async () => {
      const defaults = dryRunsOf((await template(chart, 'kube-tidy', 'kube-tidy', { mode }, ['--skip-tests'])).objects);
      expect(defaults.length).toBeGreaterThan(0);
      expect(defaults).toEqual(defaults.map(() => 'true'));
      // The check can fail: the same render with dryRun=false says so in every container.
      const off = dryRunsOf((await template(chart, 'kube-tidy', 'kube-tidy', { mode, dryRun: 'false' }, ['--skip-tests'])).objects);
      expect(off).toEqual(defaults.map(() => 'false'));
    });
  }
});

describe('server-side dry run of every rendered object', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'kube-tidy-helm-dry-'));
  beforeAll(async () => {
    await installCrds(cluster, upstreamCrdsDir('knative'));
  }, 180_000);

  for (const mode of ['knative', 'standalone']) {
    it(`accepts every ${mode}-mode object (Prometheus Operator kinds excepted: ${[...NO_CRD].join(', ')})`, async () => {
      // Without the test hooks: their Pod names an account that only `helm test` creates first
      // (a dry run persists nothing). release-test.test.ts creates them for real.
      const { objects } = await template(
        chart,
        ns.name,
        ns.name,
        { mode, clusterPrefix: ns.name, kueueNamespace: ns.name, multiKueue: 'true', ...OBSERVABILITY },
        ['--skip-tests'],
      );
      const skipped = objects.filter((o) => NO_CRD.has(o.kind));
      expect(skipped.map((o) => o.kind).sort()).toEqual(mode === 'standalone' ? ['PrometheusRule', 'ServiceMonitor'] : ['PrometheusRule']);
      const applied = objects.filter((o) => !NO_CRD.has(o.kind));
      const file = join(tmp, `${mode}.yaml`);
      writeFileSync(file, applied.map((o) => stringify(o)).join('---\n'));
      const out = await kubectl(cluster, ['apply', '--server-side', '--dry-run=server', '--validate=strict', '--field-manager=kube-tidy-test', '-f', file]);
      expect(
        out
          .trim()
          .split('\n')
          .filter((l) => /\(server dry run\)$/.test(l)),
      ).toHaveLength(applied.length);
    });
  }

  it('refuses an object with a field its schema does not have (the check can fail)', async () => {
    const { objects } = await template(chart, ns.name, ns.name, { mode: 'standalone', clusterPrefix: ns.name });
    const dep = objects.find((o) => o.kind === 'Deployment')! as Obj & { spec: Record<string, unknown> };
    dep.spec.replicaz = 2;
    const file = join(tmp, 'broken.yaml');
    writeFileSync(file, stringify(dep));
    await expect(kubectl(cluster, ['apply', '--server-side', '--dry-run=server', '--validate=strict', '-f', file])).rejects.toThrow(/replicaz/);
  });
});

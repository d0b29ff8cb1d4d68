import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { deschedulerChartDir, deschedulerModuleDir } from '../../../infra/local/descheduler/module-dir.js';
import { parseDeschedulerFlags } from '../../../shared/hosts/descheduler/flags.js';
import { InputError, loadPolicyFrom } from '../../../shared/hosts/cli/input.js';
import { template, type Obj } from '../../integration/helm/helm.js';

// The descheduler's own Helm chart (charts/descheduler in sigs.k8s.io/descheduler v0.36.0, from
// the Go module cache), rendered with the repository's Helm (npm run helm:build), runs kube-tidy
// when only its image changes: the arguments it passes (`--key=value`) are read by kube-tidy's
// descheduler command as the descheduler reads them, the policy file they name is the
// ConfigMap's key where the chart mounts it, and that policy loads. Its default policy enables
// plugins kube-tidy does not implement: kube-tidy refuses it, naming each; the chart's values
// with those left out (test/fixtures/descheduler-chart/kube-tidy-values.yaml, the migration
// page's example) load without a warning. Its plain manifests (kubernetes/: a Deployment, a
// CronJob and a Job, args as `--key value`) parse the same way.

const chart = deschedulerChartDir();
const IMAGE = { 'image.repository': 'ghcr.io/kube-tidy/kube-tidy', 'image.tag': '0.1.0' };
const VALUES = join(REPO_ROOT, 'test/fixtures/descheduler-chart/kube-tidy-values.yaml');

interface Container {
  image: string;
  command: string[];
  args: string[];
  volumeMounts: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  volumes: { name: string; configMap?: { name: string } }[];
}

/** The pod spec of the Deployment or of the CronJob's job template. */
function podSpec(objects: Obj[], kind: 'Deployment' | 'CronJob'): PodSpec {
  const o = objects.find((x) => x.kind === kind) as unknown as {
    spec: { template?: { spec: PodSpec }; jobTemplate?: { spec: { template: { spec: PodSpec } } } };
  };
  expect(o, `a ${kind}`).toBeDefined();
  return kind === 'Deployment' ? o.spec.template!.spec : o.spec.jobTemplate!.spec.template.spec;
}

/** The policy text the container's --policy-config-file names, read through the volume it is mounted from. */
function mountedPolicy(objects: Obj[], spec: PodSpec, policyFile: string): string {
  const c = spec.containers[0]!;
  const mount = c.volumeMounts.find((m) => policyFile.startsWith(`${m.mountPath}/`));
  expect(mount, `a volume mounted where ${policyFile} is`).toBeDefined();
  const volume = spec.volumes.find((v) => v.name === mount!.name);
  const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === volume?.configMap?.name) as (Obj & { data: Record<string, string> }) | undefined;
  expect(cm, `the ConfigMap volume ${mount!.name} mounts`).toBeDefined();
  const key = policyFile.slice(mount!.mountPath.length + 1);
  expect(Object.keys(cm!.data)).toContain(key);
  return cm!.data[key]!;
}

/** The problems loading a policy reports, as "path: plugin name" for the unsupported ones. */
function refusedPlugins(text: string): string[] {
  try {
    loadPolicyFrom('policy.yaml', text, false);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return e.issues.map((i) => `${i.path}: ${/plugin "([^"]+)" is not supported/.exec(i.message)?.[1] ?? i.message}`);
  }
  return [];
}

interface ChartCase {
  name: string;
  /** --set values beside the image. */
  set: Record<string, string>;
  kind: 'Deployment' | 'CronJob';
  /** The flags as parsed; leader: leader-elect, lease, renew, retry (ms), resource name, namespace. */
  want: { deschedulingIntervalMs: number; dryRun: boolean; leader: unknown[] };
}

describe("the descheduler's Helm chart with kube-tidy's image", () => {
  it.each<ChartCase>([
    {
      name: 'kind Deployment, leaderElection on: an interval, an election with the descheduler defaults for what the chart leaves unset',
      set: { kind: 'Deployment', 'leaderElection.enabled': 'true' },
      kind: 'Deployment',
      want: { deschedulingIntervalMs: 300_000, dryRun: false, leader: [true, 137_000, 107_000, 26_000, 'descheduler', 'kube-system'] },
    },
    {
      name: 'kind Deployment with every leaderElection value values.yaml documents (15s, 10s, 2s, leases, descheduler, kube-system)',
      set: {
        kind: 'Deployment',
        'leaderElection.enabled': 'true',
        'leaderElection.leaseDuration': '15s',
        'leaderElection.renewDeadline': '10s',
        'leaderElection.retryPeriod': '2s',
        'leaderElection.resourceLock': 'leases',
        'leaderElection.resourceName': 'descheduler',
        'leaderElection.resourceNamespace': 'kube-system',
      },
      kind: 'Deployment',
      want: { deschedulingIntervalMs: 300_000, dryRun: false, leader: [true, 15_000, 10_000, 2_000, 'descheduler', 'kube-system'] },
    },
    {
      name: 'kind CronJob (the default): no interval, so one cycle and exit',
      set: {},
      kind: 'CronJob',
      want: { deschedulingIntervalMs: 0, dryRun: false, leader: [false, 137_000, 107_000, 26_000, 'descheduler', 'kube-system'] },
    },
    {
      name: "kind CronJob with the chart README's dry run (--set cmdOptions.dry-run=true)",
      set: { 'cmdOptions.dry-run': 'true' },
      kind: 'CronJob',
      want: { deschedulingIntervalMs: 0, dryRun: true, leader: [false, 137_000, 107_000, 26_000, 'descheduler', 'kube-system'] },
    },
  ])('$name: its args parse, its mounted policy loads', async ({ set, kind, want }) => {
    const { objects } = await template(chart, 'descheduler', 'kube-system', { ...IMAGE, ...set }, ['--values', VALUES]);
    const spec = podSpec(objects, kind);
    const c = spec.containers[0]!;
    expect(c.image).toBe('ghcr.io/kube-tidy/kube-tidy:0.1.0');
    // The image's /bin/descheduler is kube-tidy's descheduler command.
    expect(c.command).toEqual(['/bin/descheduler']);
    for (const arg of c.args) expect(arg, 'the chart writes --key=value').toMatch(/^--[a-z-]+=./);
    const flags = parseDeschedulerFlags(c.args);
    const le = flags.leaderElection;
    expect({
      deschedulingIntervalMs: flags.deschedulingIntervalMs,
      dryRun: flags.dryRun,
      leader: [le.leaderElect, le.leaseDurationMs, le.renewDeadlineMs, le.retryPeriodMs, le.resourceName, le.resourceNamespace],
    }).toEqual(want);
    expect(flags.policyConfigFile).toBe('/policy-dir/policy.yaml');
    expect(flags.verbosity).toBe(3); // cmdOptions.v: 3
    expect(flags.ignored).toEqual([]);
    const { policy, warnings } = loadPolicyFrom(flags.policyConfigFile, mountedPolicy(objects, spec, flags.policyConfigFile), false);
    expect(warnings).toEqual([]);
    expect(policy.profiles.map((p) => [p.name, p.strategies.map((s) => s.name)])).toEqual([
      ['default', ['RemovePodsHavingTooManyRestarts', 'RemoveFailedPods']],
    ]);
    expect([...policy.profiles[0]!.evictor.podProtections.defaultDisabled, ...policy.profiles[0]!.evictor.podProtections.extraEnabled]).toEqual([
      'PodsWithLocalStorage',
      'PodsWithPVC',
    ]);
  });

  it('the migration page shows these values, as the test renders them', () => {
    const values = readFileSync(VALUES, 'utf8').replace(/^#.*\n/gm, '');
    expect(readFileSync(join(REPO_ROOT, 'docs/migrating-from-descheduler.md'), 'utf8')).toContain('```yaml\n' + values + '```');
  });

  it('a cmdOptions entry the descheduler does not define is refused by name, as its flag library refuses it', async () => {
    const { objects } = await template(chart, 'descheduler', 'kube-system', { ...IMAGE, 'cmdOptions.no-such-flag': '1' }, ['--values', VALUES]);
    expect(() => parseDeschedulerFlags(podSpec(objects, 'CronJob').containers[0]!.args)).toThrow('unknown flag: --no-such-flag');
  });

  it('with its default policy: kube-tidy refuses it, naming each plugin it does not implement (and nothing else)', async () => {
    const { objects } = await template(chart, 'descheduler', 'kube-system', IMAGE);
    const spec = podSpec(objects, 'CronJob');
    const flags = parseDeschedulerFlags(spec.containers[0]!.args);
    expect(refusedPlugins(mountedPolicy(objects, spec, flags.policyConfigFile))).toEqual([
      'profiles[0].pluginConfig[1].name: RemoveDuplicates',
      'profiles[0].pluginConfig[3].name: RemovePodsViolatingNodeAffinity',
      'profiles[0].pluginConfig[4].name: RemovePodsViolatingNodeTaints',
      'profiles[0].pluginConfig[5].name: RemovePodsViolatingInterPodAntiAffinity',
      'profiles[0].pluginConfig[6].name: RemovePodsViolatingTopologySpreadConstraint',
      'profiles[0].pluginConfig[7].name: LowNodeUtilization',
      'profiles[0].plugins.deschedule.enabled[1]: RemovePodsViolatingNodeTaints',
      'profiles[0].plugins.deschedule.enabled[2]: RemovePodsViolatingNodeAffinity',
      'profiles[0].plugins.deschedule.enabled[3]: RemovePodsViolatingInterPodAntiAffinity',
      'profiles[0].plugins.balance.enabled[0]: RemoveDuplicates',
      'profiles[0].plugins.balance.enabled[1]: RemovePodsViolatingTopologySpreadConstraint',
      'profiles[0].plugins.balance.enabled[2]: LowNodeUtilization',
    ]);
    // With kube-tidy's own --allow-unsupported added to the chart's args (cmdOptions): the rest runs, each skipped plugin named.
    const allowed = parseDeschedulerFlags([...spec.containers[0]!.args, '--allow-unsupported']);
    const { policy, warnings } = loadPolicyFrom(allowed.policyConfigFile, mountedPolicy(objects, spec, allowed.policyConfigFile), allowed.allowUnsupported);
    expect(policy.profiles[0]!.strategies.map((x) => x.name)).toEqual(['RemovePodsHavingTooManyRestarts']);
    expect(warnings.filter((w) => w.endsWith('(skipped)'))).toHaveLength(12);
  });
});

/** The objects of one of the module's kubernetes/ manifests. */
const manifest = (file: string): Obj[] =>
  parseAllDocuments(readFileSync(join(deschedulerModuleDir(), 'kubernetes', file), 'utf8'))
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);

describe("the descheduler's plain manifests (kubernetes/) with kube-tidy's image", () => {
  it.each([
    { file: 'deployment/deployment.yaml', kind: 'Deployment' as const, interval: 300_000 },
    { file: 'cronjob/cronjob.yaml', kind: 'CronJob' as const, interval: 0 },
  ])('$file: its args (--key value) parse with the descheduler defaults', ({ file, kind, interval }) => {
    const flags = parseDeschedulerFlags(podSpec(manifest(file), kind).containers[0]!.args);
    expect([flags.policyConfigFile, flags.deschedulingIntervalMs, flags.verbosity, flags.leaderElection.leaderElect]).toEqual([
      '/policy-dir/policy.yaml',
      interval,
      3,
      false,
    ]);
  });

  it('job/job.yaml: its args parse, one cycle', () => {
    const job = manifest('job/job.yaml').find((o) => o.kind === 'Job') as unknown as { spec: { template: { spec: PodSpec } } };
    const flags = parseDeschedulerFlags(job.spec.template.spec.containers[0]!.args);
    expect([flags.policyConfigFile, flags.deschedulingIntervalMs]).toEqual(['/policy-dir/policy.yaml', 0]);
  });

  it("base/configmap.yaml's example policy enables only plugins kube-tidy does not implement: refused, each named", () => {
    const cm = manifest('base/configmap.yaml')[0] as Obj & { data: Record<string, string> };
    expect(refusedPlugins(cm.data['policy.yaml']!)).toEqual([
      'profiles[0].pluginConfig[1].name: RemovePodsViolatingInterPodAntiAffinity',
      'profiles[0].pluginConfig[2].name: RemoveDuplicates',
      'profiles[0].pluginConfig[3].name: LowNodeUtilization',
      'profiles[0].plugins.deschedule.enabled[0]: RemovePodsViolatingInterPodAntiAffinity',
      'profiles[0].plugins.balance.enabled[0]: LowNodeUtilization',
      'profiles[0].plugins.balance.enabled[1]: RemoveDuplicates',
    ]);
  });
});

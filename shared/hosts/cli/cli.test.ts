import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { run, runAsync } from './main.js';
import { guessResource } from './rbac.js';
import { objectsTtlDueName } from '../../model/keys.js';
import { pod } from '../../../test/fixtures/pods.js';
import { policyDoc } from '../../../test/fixtures/policy.js';

// The CLI contract: exit codes, what goes to stdout and stderr, the JSON lines of a plan.

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-cli-'));
function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = run(argv, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const policy = file(
  'policy.yaml',
  policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 3600, exitCodes: ['128-255'] } }], { top: { maxNoOfPodsToEvictTotal: 2 } }),
);
const failed = (name: string, age: number, code: number) => pod(name).inNamespace('batch').age(age).failed({ exitCode: code }).build();
const podList = {
  apiVersion: 'v1',
  kind: 'List',
  items: [failed('newer', 7200, 137), failed('older', 9000, 143), failed('young', 60, 137), failed('exit-1', 9000, 1), failed('oldest', 9999, 139)],
};
const pods = file('pods.json', podList);
const NOW = '2026-06-01T12:00:00Z';

describe('kube-tidy policy check', () => {
  it('prints the normalized policy with defaults filled and exits 0', () => {
    const r = cli(
      'policy',
      'check',
      file(
        'min.yaml',
        'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  plugins:\n    deschedule:\n      enabled: [RemoveFailedPods]\n',
      ),
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.profiles[0].pluginConfig[1]).toEqual({ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 3600, includingInitContainers: false } });
    expect(r.stderr).toBe('');
  });

  it('shows the brakes: the window the limits hold over, rates and aborts, defaults written out', () => {
    const plain = JSON.parse(cli('policy', 'check', policy).stdout);
    expect(plain.kubeTidy).toEqual({ brakes: { window: '15m', rates: [], abort: [] } });
    const f = file(
      'brakes.yaml',
      policyDoc([{ name: 'RemoveFailedPods' }], {
        top: { kubeTidy: { brakes: { window: '1h30m', rates: [{ max: 5, per: '90s', scope: 'owner' }], abort: [{ percent: 25 }] } } },
      }),
    );
    expect(JSON.parse(cli('policy', 'check', f).stdout).kubeTidy.brakes).toEqual({
      window: '1h30m',
      rates: [{ max: 5, per: '1m30s', scope: 'owner', kinds: ['Pod'] }],
      abort: [{ percent: 25, scope: 'cluster', minPods: 0 }],
    });
  });

  it('a bad brakes section exits 2 with its field paths', () => {
    const r = cli(
      'policy',
      'check',
      file(
        'bad-brakes.yaml',
        policyDoc([{ name: 'RemoveFailedPods' }], { top: { kubeTidy: { brakes: { rates: [{ max: 1, per: 'soon' }], abort: [{ percent: 150 }] } } } }),
      ),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('kubeTidy.brakes.rates[0].per: got "soon", expected a Go duration');
    expect(r.stderr).toContain('kubeTidy.brakes.abort[0].percent');
  });

  it('exits 2 and lists every error with its path on stderr', () => {
    const r = cli('policy', 'check', file('bad.yaml', policyDoc([{ name: 'PodLifeTime', args: { states: ['Nope'], exitCodes: ['x'] } }])));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('profiles[0].pluginConfig[0].args.states[0]: got "Nope"');
    expect(r.stderr).toContain('profiles[0].pluginConfig[0].args.exitCodes[0]: "x" is not an exit code');
  });

  it('exits 2 for an unsupported plugin unless --allow-unsupported, which warns', () => {
    const f = file('unsupported.yaml', policyDoc([{ name: 'RemoveFailedPods' }, { name: 'HighNodeUtilization' }]));
    expect(cli('policy', 'check', f).code).toBe(2);
    const r = cli('policy', 'check', f, '--allow-unsupported');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: profiles[0].plugins.deschedule.enabled[1]: plugin "HighNodeUtilization" is not supported');
  });

  it.each([
    { name: 'a missing file', args: ['policy', 'check', join(dir, 'nope.yaml')], message: 'cannot read: ENOENT' },
    { name: 'no file', args: ['policy', 'check'], message: 'policy check takes exactly one FILE' },
    { name: 'an unknown flag', args: ['policy', 'check', '--frobnicate', 'x'], message: "Unknown option '--frobnicate'" },
    { name: 'an unknown command', args: ['frobnicate'], message: 'unknown command "frobnicate"' },
  ])('exits 2 with a clear message for $name', ({ args, message }) => {
    const r = cli(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

describe('kube-tidy plan', () => {
  it('prints one JSON line per selected pod, oldest first, limits applied', () => {
    const r = cli('plan', '--policy', policy, '--pods', pods, '--now', NOW);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.name)).toEqual(['oldest', 'older']);
    expect(Object.keys(lines[0])).toEqual(['namespace', 'name', 'uid', 'strategy', 'action', 'reason']);
    expect(lines[0]).toMatchObject({ namespace: 'batch', strategy: 'RemoveFailedPods', action: 'delete', uid: podList.items[4]!.metadata.uid });
    expect(lines[0].reason).toBe('RemoveFailedPods: phase Failed; container main exited 139 (in 128-255); age 2h46m > 1h0m');
  });

  it('reads a single Pod as well as a List, and explains what it kept with --explain', () => {
    const single = file('one.json', failed('solo', 100, 137));
    const r = cli('plan', '--policy', policy, '--pods', single, '--now', NOW, '--explain');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const all = cli('plan', '--policy', policy, '--pods', pods, '--now', NOW, '--explain');
    expect(all.stderr).toContain('kept batch/newer (RemoveFailedPods): limit maxNoOfPodsToEvictTotal reached');
  });

  it('with --nodes, leaves pods on a NotReady node alone, as the core does whenever it has the nodes (the docs show the flag)', () => {
    const onNode = (name: string, node: string) => pod(name).inNamespace('batch').age(9000).failed({ exitCode: 137 }).onNode(node).build();
    const dump = file('on-nodes.json', { apiVersion: 'v1', kind: 'List', items: [onNode('on-ready', 'ready'), onNode('on-down', 'down')] });
    const ready = (name: string, status: string) => ({ kind: 'Node', metadata: { name }, status: { conditions: [{ type: 'Ready', status }] } });
    const nodes = file('nodes.json', { apiVersion: 'v1', kind: 'List', items: [ready('ready', 'True'), ready('down', 'False')] });
    const names = (r: { stdout: string }) =>
      r.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).name);
    expect(names(cli('plan', '--policy', policy, '--pods', dump, '--now', NOW))).toEqual(['on-ready', 'on-down']);
    const r = cli('plan', '--policy', policy, '--pods', dump, '--nodes', nodes, '--now', NOW, '--explain');
    expect(r.code).toBe(0);
    expect(names(r)).toEqual(['on-ready']);
  });

  it('names the brakes that hold on stderr, and stops where a percentage abort would stop a pass over the dump', () => {
    const withAbort = file(
      'abort.yaml',
      policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 3600, exitCodes: ['128-255'] } }], {
        top: { maxNoOfPodsToEvictTotal: 2, kubeTidy: { brakes: { abort: [{ percent: 25, scope: 'namespace' }] } } },
      }),
    );
    const r = cli('plan', '--policy', withAbort, '--pods', pods, '--now', NOW);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('brakes: maxNoOfPodsToEvictTotal 2 per 15m (cluster); abort past 25% (namespace)');
    // 5 pods in batch: 25% is 1, so the second removal would cross it.
    expect(r.stderr).toContain(
      'abort: kubeTidy.brakes.abort: the pass would remove 2 of the 5 pods it considered in namespace batch (40%), more than 25%: a pass would remove the first 1 and stop',
    );
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('says in one line that a pod dump cannot plan the kubeTidy.objects rules, and plans the pods as before', () => {
    const withObjects = file(
      'objects.yaml',
      policyDoc([{ name: 'RemoveFailedPods', args: { minPodLifetimeSeconds: 3600, exitCodes: ['128-255'] } }], {
        top: { maxNoOfPodsToEvictTotal: 2, kubeTidy: { objects: [{ name: 'finished-jobs', kind: 'Job', minAge: '24h' }] } },
      }),
    );
    const r = cli('plan', '--policy', withObjects, '--pods', pods, '--now', NOW);
    expect(r.code).toBe(0);
    const without = cli('plan', '--policy', policy, '--pods', pods, '--now', NOW);
    expect(r.stderr).toBe(
      `objects: 1 kubeTidy.objects rules not planned: a pod dump has no Jobs, claims or Workloads; plan them with --kubeconfig\n${without.stderr}`,
    );
    expect(without.stderr, 'no object rules: no line').not.toContain('objects');
    expect(r.stdout).toBe(without.stdout);
  });

  it('a bad kubeTidy.objects rule exits 2 with its field path, offline and against a cluster alike', async () => {
    const bad = file(
      'bad-objects.yaml',
      policyDoc([{ name: 'RemoveFailedPods' }], {
        top: { kubeTidy: { objects: [{ name: 'claims', kind: 'PersistentVolumeClaim', minAge: '1h', mode: 'delete' }] } },
      }),
    );
    const offline = cli('plan', '--policy', bad, '--pods', pods, '--now', NOW);
    expect(offline.code).toBe(2);
    expect(offline.stderr).toContain('kubeTidy.objects[0].reclaimPolicy');
    let stderr = '';
    const kubeconfig = file(
      'kubeconfig.yaml',
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n',
    );
    const live = await runAsync(['plan', '--kubeconfig', kubeconfig, '--policy', bad], { out: () => undefined, err: (s) => void (stderr += s) });
    expect(live, stderr).toBe(2);
    expect(stderr).toContain('kubeTidy.objects[0].reclaimPolicy');
  });

  it('honours --protected-namespaces', () => {
    const r = cli('plan', '--policy', policy, '--pods', pods, '--now', NOW, '--protected-namespaces', 'batch,kube-system');
    expect(r.stdout).toBe('');
  });

  describe('--protected-namespaces adds to kube-system; only -NAME takes a namespace out', () => {
    const withSystem = file('with-system.json', {
      ...podList,
      items: [...podList.items, pod('dns-crashed').inNamespace('kube-system').age(99999).failed({ exitCode: 137 }).build()],
    });
    const selected = (stdout: string) =>
      stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).namespace + '/' + JSON.parse(l).name);

    it('kube-system stays protected when the list names other namespaces', () => {
      const r = cli('plan', '--policy', policy, '--pods', withSystem, '--now', NOW, '--protected-namespaces', 'team-a');
      expect(r.code).toBe(0);
      expect(selected(r.stdout)).toEqual(['batch/oldest', 'batch/older']);
      expect(r.stderr).not.toContain('NOT protected');
      // The listed namespace is protected too.
      expect(cli('plan', '--policy', policy, '--pods', withSystem, '--now', NOW, '--protected-namespaces', 'batch').stdout).toBe('');
    });

    it('-kube-system takes the default out, loudly', () => {
      const r = cli('plan', '--policy', policy, '--pods', withSystem, '--now', NOW, '--protected-namespaces=-kube-system');
      expect(r.code).toBe(0);
      expect(selected(r.stdout)).toEqual(['kube-system/dns-crashed', 'batch/oldest']);
      expect(r.stderr).toContain('warning: kube-system is NOT protected');
    });

    it('a bad entry is a usage error, for plan from a file and against a cluster alike', async () => {
      const r = cli('plan', '--policy', policy, '--pods', withSystem, '--protected-namespaces', 'team-a,-');
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--protected-namespaces: "-": a namespace after "-" is missing');
      let stderr = '';
      expect(
        await runAsync(['plan', '--kubeconfig', join(dir, 'nope.yaml'), '--protected-namespaces', 'Team_A'], { out: () => {}, err: (s) => (stderr += s) }),
      ).toBe(2);
      expect(stderr).toContain('--protected-namespaces: "Team_A": not a namespace name');
    });

    it('says so in --help, for a plan from a file and against a cluster', async () => {
      for (const args of [
        ['plan', '--help'],
        ['plan', '--kubeconfig', 'x', '--help'],
        ['run', '--help'],
      ]) {
        let stdout = '';
        await runAsync(args, { out: (s) => (stdout += s), err: () => {} });
        expect(stdout).toMatch(/--protected-namespaces LIST +Comma-separated namespaces never touched, IN ADDITION to\s+kube-system/);
        expect(stdout).toContain('--protected-namespaces=-kube-system');
      }
    });
  });

  it.each([
    { name: 'missing --pods', args: ['plan', '--policy', policy], message: 'missing --pods' },
    { name: 'a bad --now', args: ['plan', '--policy', policy, '--pods', pods, '--now', '2026-06-01'], message: 'is not an RFC 3339 time' },
    { name: 'a pods file that is not JSON', args: ['plan', '--policy', policy, '--pods', file('junk.json', '{"items": [')], message: 'not valid JSON or YAML' },
    {
      name: 'a pod without a uid',
      args: ['plan', '--policy', policy, '--pods', file('nouid.json', { kind: 'List', items: [{ metadata: { name: 'a', namespace: 'b' } }] })],
      message: 'items[0].metadata.uid: required: expected string',
    },
    { name: 'a pods file that is a number', args: ['plan', '--policy', policy, '--pods', file('num.json', '42')], message: 'expected a Pod or a List of them' },
    { name: 'an invalid policy', args: ['plan', '--policy', file('p2.yaml', { kind: 'DeschedulerPolicy' }), '--pods', pods], message: 'apiVersion' },
  ])('exits 2 with a clear message for $name', ({ args, message }) => {
    const r = cli(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
  });

  it('has --help for every command', () => {
    for (const args of [['--help'], ['plan', '--help'], ['policy', 'check', '--help']]) {
      const r = cli(...args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage:|kube-tidy:/);
    }
  });
});

describe('kube-tidy plan output', () => {
  it('prints an aligned table with -o table (the default on a terminal), JSON lines when piped', () => {
    const r = cli('plan', '--policy', policy, '--pods', pods, '--now', NOW, '-o', 'table');
    expect(r.code).toBe(0);
    const [head, ...rows] = r.stdout.trim().split('\n');
    expect(head).toMatch(/^POD\s+STRATEGY\s+ACTION\s+REASON$/);
    expect(rows[0]).toMatch(/^batch\/oldest\s+RemoveFailedPods\s+delete\s+RemoveFailedPods: phase Failed/);
    let tty = '';
    expect(run(['plan', '--policy', policy, '--pods', pods, '--now', NOW], { out: (s) => (tty += s), err: () => {}, stdoutIsTTY: true })).toBe(0);
    expect(tty).toBe(r.stdout);
  });

  it('exits 2 for an unknown -o', () => {
    const r = cli('plan', '--policy', policy, '--pods', pods, '-o', 'yaml');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('-o "yaml": expected json or table');
  });

  it.each([
    { args: ['run', '--help'], code: 0, out: /^Usage: kube-tidy run --kubeconfig FILE --yes/ },
    { args: ['plan', '--kubeconfig', 'x', '--help'], code: 0, out: /^Usage: kube-tidy plan --kubeconfig FILE/ },
    { args: ['--help'], code: 0, out: /kube-tidy run --kubeconfig FILE --yes/ },
  ])('kube-tidy $args prints its help', async ({ args, code, out }) => {
    let stdout = '';
    expect(await runAsync(args, { out: (s) => (stdout += s), err: () => {} })).toBe(code);
    expect(stdout).toMatch(out);
  });

  it('refuses a run without --yes before reading the kubeconfig, naming every other problem first', async () => {
    let stderr = '';
    expect(await runAsync(['run', '--kubeconfig', join(dir, 'nope.yaml')], { out: () => {}, err: (s) => (stderr += s) })).toBe(2);
    expect(stderr).toContain('add --yes');
    stderr = '';
    expect(await runAsync(['run', '--chunk-size', 'x'], { out: () => {}, err: (s) => (stderr += s) })).toBe(2);
    expect(stderr).toContain('missing --kubeconfig');
    expect(stderr).toContain('--chunk-size "x"');
  });
});

describe('the kube-tidy program', () => {
  it('runs as a process and sets its exit code', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'shared/hosts/cli/main.ts', 'plan', '--policy', policy, '--pods', pods, '--now', NOW], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    const bad = spawnSync(process.execPath, ['--import', 'tsx', 'shared/hosts/cli/main.ts', 'plan'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
  });
});

// `kube-tidy rbac --policy`: the ClusterRole a policy's ttl rules need, printed as YAML.
const envelope = { apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy' };
/** Every YAML document `rbac` printed, as objects. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const docs = (out: string): any[] => parseAllDocuments(out).map((d) => (d as { toJS(): unknown }).toJS());
const kinds = [
  { version: 'v1', kind: 'Namespace' },
  { version: 'v1', kind: 'ConfigMap' },
  { group: 'apps', version: 'v1', kind: 'Deployment' },
  { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
  { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy' },
];

describe('kube-tidy rbac', () => {
  it('prints get, list, watch and delete on each kind the ttl rules name, by group, and what a Namespace’s report reads', () => {
    const policy = file('ttl-rbac.json', {
      ...envelope,
      kubeTidy: {
        ttl: [
          { name: 'a', kinds: kinds.slice(0, 3) },
          { name: 'b', kinds: kinds.slice(3) },
        ],
      },
    });
    const r = cli('rbac', '--policy', policy);
    expect(r.code).toBe(0);
    const [role] = docs(r.stdout);
    expect(role).toMatchObject({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'kube-tidy-ttl' } });
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['configmaps', 'namespaces'], verbs: ['delete', 'get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['delete', 'get', 'list', 'watch'] },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: ['delete', 'get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims', 'pods'], verbs: ['list'] },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['list'] },
    ]);
  });

  it('takes a name and an irregular plural', () => {
    const policy = file('ttl-one.json', { ...envelope, kubeTidy: { ttl: [{ name: 'a', kinds: [{ group: 'example.com', version: 'v1', kind: 'Mouse' }] }] } });
    const [role, due] = docs(cli('rbac', '--policy', policy, '--name', 'previews', '--resource', 'Mouse=mice').stdout);
    expect(role.metadata.name).toBe('previews');
    expect(due.metadata).toMatchObject({ name: 'previews-due', namespace: 'kube-tidy' });
    expect(role.rules).toEqual([{ apiGroups: ['example.com'], resources: ['mice'], verbs: ['delete', 'get', 'list', 'watch'] }]);
  });

  it('a policy without ttl rules needs none (exit 0, said on stderr); an invalid one exits 2 with its field path; no --policy is a usage error', () => {
    const none = cli('rbac', '--policy', file('ttl-none.json', { ...envelope, kubeTidy: { objects: [{ name: 'j', kind: 'Job', minAge: '1h' }] } }));
    expect([none.code, none.stdout, none.stderr]).toEqual([0, '', 'kube-tidy: the policy has no kubeTidy.ttl rules: no ClusterRole is needed for them\n']);
    const bad = cli(
      'rbac',
      '--policy',
      file('ttl-bad.json', { ...envelope, kubeTidy: { ttl: [{ name: 'a', kinds: [{ version: 'v1', kind: 'namespace' }] }] } }),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('kubeTidy.ttl[0].kinds[0].kind');
    expect(cli('rbac').code).toBe(2);
    expect(cli('rbac', '--policy', 'x', '--resource', 'mice').code).toBe(2);
    expect(cli('rbac', '--policy', 'x', '--due-shards', '0').code).toBe(2);
    expect(cli('rbac', '--policy', 'x', '--namespace', 'Kube_Tidy').code).toBe(2);
  });

  it('prints the Role on each named kind’s due lists in kube-tidy’s namespace, as the event path writes them', () => {
    const policy = file('ttl-due.json', {
      ...envelope,
      kubeTidy: {
        ttl: [
          { name: 'a', kinds: kinds.slice(0, 3) },
          { name: 'b', kinds: kinds.slice(2, 3) },
        ],
      },
    });
    const [, due] = docs(cli('rbac', '--policy', policy, '--namespace', 'tidy', '--due-shards', '2').stdout);
    expect(due).toMatchObject({ kind: 'Role', metadata: { name: 'kube-tidy-ttl-due', namespace: 'tidy' } });
    // The names the objects family writes (model/keys.ts objectsTtlDueName), each kind once.
    const names = kinds.slice(0, 3).flatMap((k) => [0, 1].map((shard) => objectsTtlDueName({ group: k.group ?? '', kind: k.kind }, shard)));
    expect(due.rules).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'update'], resourceNames: names.sort() },
    ]);
    expect(names).toContain('kube-tidy-objects-due-ttl-deployment.apps-1');
  });

  it('names a kind’s resource as the REST mapper guesses it (lower case; es after an s; ies for a y; Endpoints as it is)', () => {
    const kinds = ['Deployment', 'Ingress', 'NetworkPolicy', 'Endpoints', 'Namespace'];
    expect(kinds.map(guessResource)).toEqual(['deployments', 'ingresses', 'networkpolicies', 'endpoints', 'namespaces']);
  });
});

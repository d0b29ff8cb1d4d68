// `kube-tidy plan --kubeconfig` with a kubeconfig whose user is a credential plugin (exec),
// against the shared real cluster: the plugin gets what client-go gives it (args, env,
// KUBERNETES_EXEC_INFO with the cluster when asked for), is found relative to the
// kubeconfig's directory as kubectl finds it, runs once for the whole pass, and its token is
// the one the API server sees. The failure and timeout cases need no cluster:
// test/unit/cli/live-timeout.test.ts.
import { runCli, type Ran } from '../../harness/cli-process.js';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { runPod } from '../functions/setup.js';

const ns = testNamespace('cli-exec');
const cluster = sharedCluster();
const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-cli-exec-'));

function file(path: string, content: string, mode = 0o644): string {
  writeFileSync(join(dir, path), content);
  chmodSync(join(dir, path), mode);
  return join(dir, path);
}

const cli = (...args: string[]): Promise<Ran> => runCli(args);

let kubeconfig: string;
let policyFile: string;
let server: string;

beforeAll(async () => {
  const admin = cluster.kubeConfig();
  server = admin.getCurrentCluster()!.server;
  const token = admin.getCurrentUser()!.token!;
  mkdirSync(join(dir, 'bin'));
  // Records what it was given, then answers with the admin's token (from its env, as a real
  // plugin reads its own configuration) and no expirationTimestamp.
  file(
    'bin/token.sh',
    `#!/bin/sh
echo run >> ${join(dir, 'runs')}
printf '%s' "$KUBERNETES_EXEC_INFO" > ${join(dir, 'exec-info.json')}
printf '%s\\n' "$@" > ${join(dir, 'args')}
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$TIDY_TEST_TOKEN"
`,
    0o755,
  );
  kubeconfig = file(
    'kubeconfig.yaml',
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server, 'certificate-authority-data': admin.getCurrentCluster()!.caData } }],
      users: [
        {
          name: 'plugin',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              // Relative to this file's directory (kubectl's rule for a command with a slash), not to the CLI's cwd.
              command: './bin/token.sh',
              args: ['--cluster', 'test'],
              env: [{ name: 'TIDY_TEST_TOKEN', value: token }],
              interactiveMode: 'Never',
              provideClusterInfo: true,
            },
          },
        },
      ],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'plugin' } }],
      'current-context': 'c',
    }),
  );
  policyFile = file(
    'policy.yaml',
    stringify({
      apiVersion: 'descheduler/v1alpha2',
      kind: 'DeschedulerPolicy',
      profiles: [
        {
          name: 'failed',
          pluginConfig: [
            { name: 'DefaultEvictor', args: { podProtections: { defaultDisabled: ['FailedBarePods'] } } },
            { name: 'PodLifeTime', args: { states: ['Failed'], exitCodes: ['1-255'], namespaces: { include: [ns.name] } } },
          ],
          plugins: { deschedule: { enabled: ['PodLifeTime'] } },
        },
      ],
    }),
  );
  const core = admin.makeApiClient(CoreV1Api);
  for (const name of ['failed-0', 'failed-1', 'failed-2']) await runPod(core, ns.name, name, { exitCode: 2 });
});

describe('kube-tidy plan --kubeconfig with a credential plugin', () => {
  it('plans with the token the plugin printed, running it once with the exec spec, KUBERNETES_EXEC_INFO and the cluster', async () => {
    const r = await cli('plan', '--kubeconfig', kubeconfig, '--namespace', ns.name, '--policy', policyFile, '--chunk-size', '1', '--timeout', '60s');
    expect(r.code, r.stderr).toBe(0);
    const planned = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(planned.map((l) => [l.name, l.outcome, l.dryRun]).sort()).toEqual([
      ['failed-0', 'deleted', true],
      ['failed-1', 'deleted', true],
      ['failed-2', 'deleted', true],
    ]);
    expect(readFileSync(join(dir, 'args'), 'utf8')).toBe('--cluster\ntest\n');
    const info = JSON.parse(readFileSync(join(dir, 'exec-info.json'), 'utf8')) as Record<string, unknown>;
    expect(info).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server, 'certificate-authority-data': cluster.kubeConfig().getCurrentCluster()!.caData } },
    });
    // Several LIST pages and three dry-run deletes, one plugin run: a credential with no
    // expirationTimestamp is kept for the process, as client-go keeps it.
    expect(readFileSync(join(dir, 'runs'), 'utf8')).toBe('run\n');
  });
});

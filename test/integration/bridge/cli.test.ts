// `kube-tidy bridge` as a person runs it: a real process, a real sink, SIGTERM to stop.
import { CoreV1Api } from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSink, type TestSink } from '../../fixtures/http-sink.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { LABEL, pod } from './helpers.js';

const ns = testNamespace('bridge-cli');
const cluster = sharedCluster();
const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
let sink: TestSink;

beforeAll(async () => {
  sink = await startTestSink();
});
afterAll(() => sink?.close());

describe('kube-tidy bridge', () => {
  it('delivers an event, and on SIGTERM drains, logs a summary and exits 0', async () => {
    const args = [
      '--import',
      'tsx',
      'shared/hosts/cli/main.ts',
      'bridge',
      '--kubeconfig',
      cluster.kubeconfigPath,
      '--sink',
      sink.url,
      '--namespace',
      ns.name,
      '--label-selector',
      `${LABEL}=cli`,
    ];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor('the bridge to start', async () => stderr.includes('"msg":"bridge started"'), { timeoutMs: 30_000 });
      await core.createNamespacedPod({ namespace: ns.name, body: pod('via-cli', 'cli') });
      await waitFor('the add event at the sink', async () =>
        sink.received.some((r) => r.headers['ce-name'] === 'via-cli' && r.headers['ce-type'] === 'dev.knative.apiserver.resource.add'),
      );
      child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000))]);
      expect(code, stderr).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const lines = stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(
      lines.some(
        (l) => l.msg === 'delivered' && l.type === 'dev.knative.apiserver.resource.add' && l.subject === `/apis/v1/namespaces/${ns.name}/pods/via-cli`,
      ),
    ).toBe(true);
    const summary = lines.at(-1);
    expect(summary?.msg).toMatch(/^bridge stopped/);
    expect(summary?.delivered).toBe(sink.received.filter((r) => r.status === 200).length);
  });

  it('--policy: watches the kinds its ttl rules name, found by discovery (a cluster-scoped Namespace too), and says one not served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-bridge-policy-'));
    const policy = join(dir, 'policy.yaml');
    const rule = {
      name: 'previews',
      kinds: [
        { version: 'v1', kind: 'Namespace' },
        { group: 'example.com', version: 'v1', kind: 'Widget' },
      ],
    };
    writeFileSync(policy, JSON.stringify({ apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', profiles: [], kubeTidy: { ttl: [rule] } }));
    const args = ['--import', 'tsx', 'shared/hosts/cli/main.ts', 'bridge', '--kubeconfig', cluster.kubeconfigPath, '--sink', sink.url];
    const child = spawn(process.execPath, [...args, '--policy', policy, '--label-selector', `${LABEL}=ttl-${ns.name}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const name = `${ns.name}-ttl`;
    try {
      await waitFor('the bridge to start', async () => stderr.includes('"msg":"bridge started"'), { timeoutMs: 30_000 });
      expect(stderr).toContain('example.com/v1 is not served by this cluster');
      await core.createNamespace({ body: { metadata: { name, labels: { [LABEL]: `ttl-${ns.name}`, 'cleanup.kyverno.io/ttl': '1h' } } } });
      await waitFor('the Namespace add event at the sink', async () =>
        sink.received.some(
          (r) => r.headers['ce-name'] === name && r.headers['ce-kind'] === 'Namespace' && r.headers['ce-type'] === 'dev.knative.apiserver.resource.add',
        ),
      );
      child.kill('SIGTERM');
      expect(await exited, stderr).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await core.deleteNamespace({ name }).catch(() => undefined);
    }
  }, 60_000);

  it('refuses bad flags with exit 2 and says what is wrong', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'shared/hosts/cli/main.ts', 'bridge', '--kubeconfig', cluster.kubeconfigPath, '--sink', 'ftp://x', '--kinds', 'Pod,Deployment'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--sink "ftp://x" is not an http or https URL');
    expect(stderr).toContain('unknown kind "Deployment"');
  });
});

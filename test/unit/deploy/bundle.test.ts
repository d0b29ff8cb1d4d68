// The production bundle, as the image runs it: the entry and the bundle alone (no node_modules
// anywhere above them), on Node 22, FUNCTION_TARGET picking the function. It must answer a real Knative event
// and drain on SIGTERM. The kubeconfig points nowhere: this event needs no API request.
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { HTTP } from 'cloudevents';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { bundle } from '../../../infra/bundle/build.js';
import { node22 } from '../../../infra/bundle/node22.js';
import { toApiServerSourceEvent } from '../../../shared/events/index.js';

// Real processes start slowly when the whole suite runs in parallel on two cores.
vi.setConfig({ testTimeout: 30_000 });

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-bundle-'));
let file = '';
let built = { bytes: 0, ms: 0 };

beforeAll(async () => {
  const out = join(dir, 'build', 'server.mjs');
  built = await bundle(out);
  file = join(dir, 'run', 'server.mjs');
  mkdirSync(join(dir, 'run'));
  copyFileSync(out, file);
  copyFileSync(join(dir, 'build', 'app.mjs'), join(dir, 'run', 'app.mjs'));
  // What the entry loads on first need (the Kubernetes client, each target).
  cpSync(join(dir, 'build', 'chunks'), join(dir, 'run', 'chunks'), { recursive: true });
  writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n  - name: p\n    pluginConfig: [{name: RemoveFailedPods, args: {}}]\n    plugins: {deschedule: {enabled: [RemoveFailedPods]}}\n');
  writeFileSync(
    join(dir, 'kubeconfig'),
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n',
  );
}, 120_000);

function run(target: string) {
  const child = spawn(node22(), [file], {
    cwd: join(dir, 'run'),
    env: { PATH: process.env.PATH, FUNCTION_TARGET: target, PORT: '0', POLICY_FILE: join(dir, 'policy.yaml'), KUBECONFIG: join(dir, 'kubeconfig') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const port = new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (l) => {
      const line = JSON.parse(l) as { msg?: string; port?: number };
      if (line.msg === 'serving') resolve(line.port!);
    });
    child.once('exit', () => reject(new Error(`exited before serving: ${stderr}`)));
  });
  return { child, port, exit, stderr: () => stderr };
}

describe('the bundle on Node 22', () => {
  it('is one self-contained file of a few MB', () => {
    expect(built.bytes).toBeGreaterThan(100_000);
    expect(built.bytes).toBeLessThan(8_000_000);
  });

  it('serves podTerminated: a Running pod from a Knative event is nothing to do; SIGTERM exits 0', async () => {
    const p = run('podTerminated');
    const port = await p.port;
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'ml', uid: 'u-1', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { containers: [{ name: 'c', image: 'x' }] }, status: { phase: 'Running' } };
    const msg = HTTP.binary(toApiServerSourceEvent('update', pod, 'https://api.example'));
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: msg.headers as Record<string, string>, body: msg.body as string });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ outcome: 'nothing-to-do', pod: 'ml/web' });
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
    expect(p.stderr()).toBe('');
  });

  it('refuses a FUNCTION_TARGET that is not registered, naming the ones that are', async () => {
    const p = run('nope');
    await expect(p.port).rejects.toThrow(/"nope" is not one of .*podTerminated/);
    expect(await p.exit).toBe(2);
  });
});

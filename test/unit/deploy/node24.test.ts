// Node 24 is the next LTS after the image's 22: the CLI and one function must run on it
// unchanged. A smoke test, not the suite: the offline plan through the CLI's source (as `npx
// kube-tidy` runs it, via tsx), and the production bundle answering a real Knative event.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { bundle } from '../../../infra/bundle/build.js';
import { nodeBinary } from '../../../infra/bundle/node-binary.js';
import { startServer } from '../../../infra/bundle/serving.js';
import { httpMessage, toApiServerSourceEvent } from '../../../shared/cloudevents/index.js';

vi.setConfig({ testTimeout: 60_000 });

const ROOT = join(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-node24-'));
let node24 = '';

beforeAll(async () => {
  node24 = nodeBinary(24);
  await bundle(join(dir, 'build', 'server.cjs'));
  mkdirSync(join(dir, 'run'));
  for (const f of ['server.cjs', 'app.cjs', 'client.cjs']) copyFileSync(join(dir, 'build', f), join(dir, 'run', f));
  writeFileSync(
    join(dir, 'policy.yaml'),
    'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n  - name: p\n    pluginConfig: [{name: RemoveFailedPods, args: {minPodLifetimeSeconds: 3600}}]\n    plugins: {deschedule: {enabled: [RemoveFailedPods]}}\n',
  );
  writeFileSync(
    join(dir, 'kubeconfig'),
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n',
  );
}, 180_000);

const pod = (name: string, phase: string, created: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'ml',
    uid: `u-${name}`,
    creationTimestamp: created,
    ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'train', uid: 'j-1', controller: true }],
  },
  spec: { containers: [{ name: 'c', image: 'x' }] },
  status: { phase, startTime: created },
});

describe('on Node 24', () => {
  it('the CLI plans offline: the old failed pod is selected, the young one and the running one are not', () => {
    const pods = join(dir, 'pods.json');
    writeFileSync(
      pods,
      JSON.stringify({
        items: [pod('old', 'Failed', '2026-06-01T08:00:00Z'), pod('young', 'Failed', '2026-06-01T11:50:00Z'), pod('web', 'Running', '2026-06-01T08:00:00Z')],
      }),
    );
    const r = spawnSync(
      node24,
      [
        '--import',
        'tsx',
        'shared/hosts/cli/main.ts',
        'plan',
        '--policy',
        join(dir, 'policy.yaml'),
        '--pods',
        pods,
        '--now',
        '2026-06-01T12:00:00Z',
        '--output',
        'json',
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.stderr).not.toMatch(/error|warning/i);
    expect(r.status).toBe(0);
    // One JSON line per pod the plan removes.
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { namespace: string; name: string; strategy: string });
    expect(lines.map((l) => `${l.namespace}/${l.name} ${l.strategy}`)).toEqual(['ml/old RemoveFailedPods']);
  });

  it('the bundle serves podTerminated: a Running pod is nothing to do, SIGTERM exits 0', async () => {
    const p = startServer(
      node24,
      [join(dir, 'run', 'server.cjs')],
      { FUNCTION_TARGET: 'podTerminated', PORT: '0', POLICY_FILE: join(dir, 'policy.yaml'), KUBECONFIG: join(dir, 'kubeconfig') },
      join(dir, 'run'),
    );
    const { port } = await p.serving;
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      ...httpMessage(toApiServerSourceEvent('update', pod('web', 'Running', '2026-06-01T08:00:00Z'), 'https://api.example')),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ outcome: 'nothing-to-do', pod: 'ml/web' });
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.stderr()).toBe('');
  });
});

// loadKubeConfig picks its source in a fixed order and fails with a message that names
// the problem but never a credential.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeKubeConfig, describeSource, KubeConfigError, loadKubeConfig } from './config.js';

const TOKEN = 'secret-token-that-must-not-leak';
let dir: string;

function kubeconfig(file: string, name: string, server: string): string {
  const path = join(dir, file);
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: ${name}, cluster: {server: "${server}"}}]`,
      `users: [{name: ${name}, user: {token: ${TOKEN}}}]`,
      `contexts: [{name: ${name}, context: {cluster: ${name}, user: ${name}}}]`,
      `current-context: ${name}`,
    ].join('\n'),
  );
  return path;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kube-config-test-'));
  vi.stubEnv('KUBECONFIG', '');
  vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
  vi.stubEnv('KUBERNETES_SERVICE_PORT', '');
});
afterEach(() => vi.unstubAllEnvs());

describe('loadKubeConfig', () => {
  for (const row of [
    {
      sentence: 'an explicit path wins over KUBECONFIG and the service account',
      arrange: () => {
        vi.stubEnv('KUBECONFIG', kubeconfig('env.yaml', 'env', 'https://env.example:6443'));
        vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
        return { kubeconfig: kubeconfig('explicit.yaml', 'explicit', 'https://explicit.example:6443') };
      },
      source: 'path',
      server: 'https://explicit.example:6443',
    },
    {
      sentence: 'KUBECONFIG with two files merges them and keeps the first file context',
      arrange: () => {
        const files = [kubeconfig('a.yaml', 'a', 'https://a.example'), kubeconfig('b.yaml', 'b', 'https://b.example')];
        vi.stubEnv('KUBECONFIG', files.join(':'));
        return {};
      },
      source: 'KUBECONFIG',
      server: 'https://a.example',
    },
    {
      sentence: 'an explicit path with two files (a runtime passes its KUBECONFIG so) merges them too',
      arrange: () => ({ kubeconfig: [kubeconfig('c.yaml', 'c', 'https://c.example'), kubeconfig('d.yaml', 'd', 'https://d.example')].join(':') }),
      source: 'path',
      server: 'https://c.example',
    },
    {
      sentence: 'a context named by --context wins over the file current-context',
      arrange: () => ({ kubeconfig: [kubeconfig('e.yaml', 'e', 'https://e.example'), kubeconfig('f.yaml', 'f', 'https://f.example')].join(':'), context: 'f' }),
      source: 'path',
      server: 'https://f.example',
    },
    {
      sentence: 'the service account is used in a pod',
      arrange: () => {
        const sa = join(dir, 'var/run/secrets/kubernetes.io/serviceaccount');
        mkdirSync(sa, { recursive: true });
        writeFileSync(join(sa, 'token'), TOKEN);
        vi.stubEnv('KUBERNETES_SERVICE_HOST', 'fd00::1');
        vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
        return { inClusterPathPrefix: dir };
      },
      source: 'in-cluster',
      server: 'https://[fd00::1]:443',
    },
  ])
    it(row.sentence, () => {
      const { arrange, source, server } = row;
      const opts = arrange();
      expect(describeSource(opts)).toBe(source);
      const kc = loadKubeConfig(opts);
      expect(kc.getCurrentCluster()?.server).toBe(server);
      expect(JSON.stringify(describeKubeConfig(kc))).not.toContain(TOKEN);
    });

  for (const row of [
    {
      sentence: 'nothing configured is refused with the three ways to configure',
      arrange: () => ({}),
      message: /pass --kubeconfig, set KUBECONFIG, or run in a pod/,
    },
    {
      sentence: 'an unknown --context is named with the contexts the file has',
      arrange: () => ({ kubeconfig: kubeconfig('g.yaml', 'g', 'https://g.example'), context: 'prod' }),
      message: /g\.yaml: no context "prod" \(it has g\)/,
    },
    { sentence: 'a missing file is named', arrange: () => ({ kubeconfig: join(dir, 'nope.yaml') }), message: /nope\.yaml: no such file/ },
    {
      sentence: 'an unparsable file is named without quoting its contents',
      arrange: () => {
        const path = join(dir, 'broken.yaml');
        writeFileSync(path, `users: [{name: x, user: {token: ${TOKEN}}}\n  : : bad`);
        return { kubeconfig: path };
      },
      message: /broken\.yaml: not a readable kubeconfig$/,
    },
    {
      sentence: 'a file with no cluster for its context is named',
      arrange: () => {
        const path = join(dir, 'empty.yaml');
        writeFileSync(path, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
        return { kubeconfig: path };
      },
      message: /empty\.yaml: no cluster for context/,
    },
    {
      sentence: 'a pod without a mounted token is refused with the reason',
      arrange: () => {
        vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
        return { inClusterPathPrefix: dir };
      },
      message: /automountServiceAccountToken/,
    },
  ])
    it(row.sentence, () => {
      const { arrange, message } = row;
      const opts = arrange();
      let error: unknown;
      try {
        loadKubeConfig(opts);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(KubeConfigError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain(TOKEN);
    });
});

describe('describeKubeConfig', () => {
  it('drops user info from the server URL', () => {
    const kc = loadKubeConfig({ kubeconfig: kubeconfig('u.yaml', 'u', 'https://admin:pw@k.example') });
    expect(describeKubeConfig(kc)).toEqual({ context: 'u', server: 'https://k.example' });
  });
});

// The credential plugin runner on its own (shared/hosts/cli/exec-credential.ts), with real plugin
// processes: what it puts on a request, and when it runs the plugin again.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { execCredentials } from '../../../shared/hosts/cli/exec-credential.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-exec-credential-'));

/** A kubeconfig whose user runs a plugin printing `status`, counting its runs in `runs`. */
function withPlugin(name: string, status: Record<string, unknown>): { kc: KubeConfig; runs: () => number } {
  const runs = join(dir, `${name}.runs`);
  writeFileSync(runs, '');
  const command = join(dir, `${name}.sh`);
  writeFileSync(
    command,
    `#!/bin/sh\necho run >> ${runs}\necho '${JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status })}'\n`,
  );
  chmodSync(command, 0o755);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: false }],
    users: [{ name: 'u', exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command } }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return { kc, runs: () => readFileSync(runs, 'utf8').split('\n').filter(Boolean).length };
}

async function requestOptions(kc: KubeConfig): Promise<RequestOptions> {
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  return opts;
}

describe('credential plugins run by kube-tidy', () => {
  it('a token is sent as a bearer token, and kept while it has not expired', async () => {
    const { kc, runs } = withPlugin('future', { token: 'abc', expirationTimestamp: new Date(Date.now() + 3_600_000).toISOString() });
    execCredentials(kc, new AbortController().signal);
    for (let i = 0; i < 3; i++) expect((await requestOptions(kc)).headers).toMatchObject({ Authorization: 'Bearer abc' });
    expect(runs()).toBe(1);
  });

  it('an expired credential runs the plugin again for the next request', async () => {
    const { kc, runs } = withPlugin('expired', { token: 'abc', expirationTimestamp: '2020-01-01T00:00:00Z' });
    execCredentials(kc, new AbortController().signal);
    await requestOptions(kc);
    await requestOptions(kc);
    expect(runs()).toBe(2);
  });

  it('a client certificate and key go on the TLS connection', async () => {
    const { kc } = withPlugin('cert', { clientCertificateData: 'CERT PEM', clientKeyData: 'KEY PEM' });
    execCredentials(kc, new AbortController().signal);
    const opts = await requestOptions(kc);
    expect(opts).toMatchObject({ cert: 'CERT PEM', key: 'KEY PEM' });
    expect(opts.headers ?? {}).not.toHaveProperty('Authorization');
  });

  it('an aborted signal stops before the plugin runs', async () => {
    const { kc, runs } = withPlugin('aborted', { token: 'abc' });
    const stop = new AbortController();
    stop.abort(new Error('deadline'));
    await expect(execCredentials(kc, stop.signal).ready()).rejects.toThrow('deadline');
    expect(runs()).toBe(0);
  });
});

import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freePorts } from '../../../test/harness/ports.js';
import { MetricsRecorder } from '../../metrics/recorder.js';
import type { ServingFlags } from './flags.js';
import { servingCertificate, startSecureServing } from './serving.js';

const flags = (o: Partial<ServingFlags> = {}): ServingFlags => ({
  bindAddress: '127.0.0.1',
  securePort: 10258,
  certDir: '',
  tlsCertFile: '',
  tlsPrivateKeyFile: '',
  ...o,
});

const get = (port: number, path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });

describe("the descheduler's secure port", () => {
  it('makes a self-signed certificate for localhost, in --cert-dir as apiserver.crt/.key, and reuses it there', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'kt-certs-')), 'certs');
    const made = await servingCertificate(flags({ certDir: dir }));
    const cert = new X509Certificate(made.cert);
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.checkPrivateKey(createPrivateKey(made.key))).toBe(true);
    expect(readFileSync(join(dir, 'apiserver.crt'), 'utf8')).toBe(made.cert);
    expect(statSync(join(dir, 'apiserver.key')).mode & 0o777).toBe(0o600);
    expect((await servingCertificate(flags({ certDir: dir }))).cert).toBe(made.cert);
    // Given files win over --cert-dir.
    const given = await servingCertificate(
      flags({ certDir: '/nowhere', tlsCertFile: join(dir, 'apiserver.crt'), tlsPrivateKeyFile: join(dir, 'apiserver.key') }),
    );
    expect(given.cert).toBe(made.cert);
  });

  it('answers /healthz with ok, /metrics only when metrics are on, and nothing with --secure-port 0', async () => {
    expect(await startSecureServing(flags({ securePort: 0 }), undefined)).toBeUndefined();
    const metrics = new MetricsRecorder({});
    metrics.record('deschedulerBuildInfo', 1, { AppVersion: 'x', DeschedulerVersion: 'y', GitBranch: '', GitSha1: '', GoVersion: 'z' });
    const [a, b] = await freePorts(2);
    const withMetrics = (await startSecureServing(flags({ securePort: a! }), metrics))!;
    const without = (await startSecureServing(flags({ securePort: b! }), undefined))!;
    try {
      expect(await get(withMetrics.port, '/healthz')).toEqual({ status: 200, body: 'ok' });
      expect(await get(withMetrics.port, '/healthz/Descheduler')).toEqual({ status: 200, body: 'ok' });
      expect((await get(withMetrics.port, '/metrics')).body).toMatch(/descheduler_build_info\{/);
      expect((await get(without.port, '/metrics')).status).toBe(404);
    } finally {
      await withMetrics.close();
      await without.close();
    }
  });
});

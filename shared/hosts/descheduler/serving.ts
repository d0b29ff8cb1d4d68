// The descheduler's secure port (k8s.io/apiserver's SecureServingOptions as its command sets
// them up): HTTPS on --bind-address:--secure-port (10258), /healthz (and /healthz/ping,
// /healthz/Descheduler: its one named check is a ping) answering "ok", /metrics unless
// --disable-metrics. The certificate is --tls-cert-file/--tls-private-key-file when given; else
// apiserver.crt/apiserver.key in --cert-dir, made there self-signed when absent; else
// self-signed in memory (the image's root filesystem is read-only), as the descheduler does.
// The certificate is made with the selfsigned library, not by hand.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { metricsExposition } from '../../metrics/exposition.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import type { ServingFlags } from './flags.js';

export interface SecureServing {
  /** The port it listens on (the one asked for, or the one given for 0 in tests). */
  port: number;
  close(): Promise<void>;
}

interface KeyPair {
  key: string;
  cert: string;
}

/** The API server's pair name for a self-signed serving certificate under --cert-dir. */
const PAIR = 'apiserver';

async function selfSigned(): Promise<KeyPair> {
  // As the API server names its own: host@unix-time, valid for localhost and the loopback.
  const made = await generate([{ name: 'commonName', value: `localhost@${Math.floor(Date.now() / 1000)}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { key: made.private, cert: made.cert };
}

/** The serving certificate, where the flags say it is (or is to be made). */
export async function servingCertificate(f: ServingFlags): Promise<KeyPair> {
  if (f.tlsCertFile !== '') return { cert: readFileSync(f.tlsCertFile, 'utf8'), key: readFileSync(f.tlsPrivateKeyFile, 'utf8') };
  if (f.certDir === '') return selfSigned();
  const cert = join(f.certDir, `${PAIR}.crt`);
  const key = join(f.certDir, `${PAIR}.key`);
  if (existsSync(cert) && existsSync(key)) return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
  const made = await selfSigned();
  mkdirSync(f.certDir, { recursive: true });
  writeFileSync(key, made.key, { mode: 0o600 });
  writeFileSync(cert, made.cert);
  return made;
}

/** Serves until closed; undefined with --secure-port 0 (nothing served, as the API server's options read it). */
export async function startSecureServing(f: ServingFlags, metrics: MetricsRecorder | undefined): Promise<SecureServing | undefined> {
  if (f.securePort === 0) return undefined;
  const pair = await servingCertificate(f);
  const server: Server = createServer(pair, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const text = (status: number, body: string) =>
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end(body);
    if (req.method !== 'GET' && req.method !== 'HEAD') return text(405, 'method not allowed\n');
    if (path === '/healthz' || path === '/healthz/ping' || path === '/healthz/Descheduler') return text(200, 'ok');
    if (path === '/metrics' && metrics) {
      metricsExposition(metrics).then(
        (m) => res.writeHead(200, { 'content-type': m.contentType }).end(m.body),
        (e: unknown) => text(500, `${(e as Error).message}\n`),
      );
      return;
    }
    text(404, '404 page not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(f.securePort, f.bindAddress, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : f.securePort,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// An API server that goes down half-way: a TLS proxy on loopback in front of the shared
// cluster's kube-apiserver, serving with the API server's own certificate (so the function's
// kubeconfig trusts it as it would the real one), passing reads through and cutting the
// connection of every write. A sweep through it can list what to do and can do none of it:
// the API server "went down" between the LIST and the DELETEs.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';

export interface FlakyApiServer {
  kubeconfig: string;
  /** Writes cut so far. */
  cut: number;
  stop(): Promise<void>;
}

/** `kubeconfig` is the function's own (its token is kept); the proxy listens on a free port. */
export async function flakyApiServer(adminKubeconfigPath: string, kubeconfig: string, outFile: string): Promise<FlakyApiServer> {
  const pki = join(dirname(adminKubeconfigPath), 'pki');
  const ca = readFileSync(join(pki, 'apiserver.crt'));
  const cfg = parse(readFileSync(kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[] };
  const upstream = new URL(cfg.clusters[0]!.cluster.server);
  const state = { cut: 0 };
  const server = createServer({ cert: ca, key: readFileSync(join(pki, 'apiserver.key')) }, (req, res) => {
    if (req.method !== 'GET') {
      state.cut++;
      req.socket.destroy();
      return;
    }
    const up = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, ca }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => req.socket.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cfg.clusters[0]!.cluster.server = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(outFile, stringify(cfg), { mode: 0o600 });
  return {
    kubeconfig: outFile,
    get cut() {
      return state.cut;
    },
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

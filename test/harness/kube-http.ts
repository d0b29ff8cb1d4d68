// A tiny HTTPS client for bootstrapping a cluster (readiness, nodes, service accounts)
// before a KubeConfig exists, trusting only the cluster's own CA.
import { request } from 'node:https';

export interface Endpoint {
  server: string;
  ca: string;
  token: string;
}

export interface Reply {
  status: number;
  body: string;
}

export function kubeRequest(endpoint: Endpoint, method: string, path: string, body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      new URL(path, endpoint.server),
      {
        method,
        ca: endpoint.ca,
        headers: {
          authorization: `Bearer ${endpoint.token}`,
          accept: 'application/json',
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
        timeout: 5_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

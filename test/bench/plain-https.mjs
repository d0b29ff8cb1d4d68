// What the ceilings' plain clients share (scale/plain-client.mjs for pods,
// objects-plain-client.mjs for Jobs): the connection from stdin, one keep-alive agent with
// IN_FLIGHT sockets (one TLS handshake per socket), a request whose answer is read to its end and
// decoded only when asked, and DELETEs IN_FLIGHT at a time counted by status. Plain node:https,
// no Kubernetes client, no TypeScript loader: the least a program can do.
import { Buffer } from 'node:buffer';
import { Agent, request } from 'node:https';
import process from 'node:process';
import { URL } from 'node:url';

export const IN_FLIGHT = 32;

/** The connection its parent writes on stdin: { server, ca, cert?, key?, authorization?, ... } (authorization: the whole header value). */
export async function readInput() {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const d of process.stdin) text += d;
  return JSON.parse(text);
}

/** A client of `input.server`: `send` resolves with the status and, when `keep`, the body as text. */
export function plainHttps(input) {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT, ca: input.ca, cert: input.cert, key: input.key });
  const headers = { accept: 'application/json', ...(input.authorization ? { authorization: input.authorization } : {}) };
  const send = (method, path, body, keep) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        new URL(path, input.server),
        { method, agent, headers: payload ? { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : headers },
        (res) => {
          const chunks = [];
          if (keep) res.on('data', (c) => chunks.push(c));
          else res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: keep ? Buffer.concat(chunks).toString('utf8') : '' }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { send, close: () => agent.destroy() };
}

/** This process's CPU (user + system) since `since` (a process.cpuUsage()), or in all, in ms. */
export const cpuMs = (since) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

/** One DELETE per item, IN_FLIGHT at a time in order; `target(item)` is its path and body. 200 and 202 count as deleted, any other status by its number. */
export async function deleteEach(send, items, target) {
  const failed = {};
  let deleted = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < items.length) {
        const { path, body } = target(items[next++]);
        const { status } = await send('DELETE', path, body, false);
        if (status === 200 || status === 202) deleted++;
        else failed[status] = (failed[status] ?? 0) + 1;
      }
    }),
  );
  return { deleted, failed };
}

// The ceiling's client (issue 35): the least a program can do to remove the scale population's
// Failed pods, so that its deletes/s is the API server's ceiling and its CPU the floor a
// removal costs a client. Plain node:https, no Kubernetes client, no TypeScript loader: a LIST
// of the Failed pods (field and label selector, pages of 5,000), then one DELETE per pod with
// its uid as precondition, 32 in flight over one keep-alive agent (one TLS handshake per
// socket). An answer is read to its end and not decoded: its status says all the loop needs.
//
// Its parent (ceiling.ts) hands it the connection on stdin as one JSON object:
//   { server, ca, cert?, key?, authorization? }   (authorization: the whole header value)
// and reads one JSON line from stdout: deleted, failed (status -> count), listSeconds, pages,
// writeSeconds, and its own CPU (process.cpuUsage(), ms) for the list, for the deletes and for
// the whole process (its start, module loading and TLS set-up included), and its peak RSS.
import { Buffer } from 'node:buffer';
import { Agent, request } from 'node:https';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URL, URLSearchParams } from 'node:url';

const IN_FLIGHT = 32;

const input = JSON.parse(
  await new Promise((resolve) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => (text += d));
    process.stdin.on('end', () => resolve(text));
  }),
);

const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT, ca: input.ca, cert: input.cert, key: input.key });
const headers = { accept: 'application/json', ...(input.authorization ? { authorization: input.authorization } : {}) };

/** One request; resolves with the status and, when `keep`, the body as text. */
function send(method, path, body, keep) {
  return new Promise((resolve, reject) => {
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
}

const cpuMs = (since) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

async function list() {
  const pods = [];
  let token = '';
  let pages = 0;
  do {
    const q = new URLSearchParams({ fieldSelector: 'status.phase=Failed', labelSelector: 'bench=scale', limit: '5000' });
    if (token) q.set('continue', token);
    const { status, text } = await send('GET', `/api/v1/pods?${q}`, undefined, true);
    if (status !== 200) throw new Error(`LIST answered ${status}: ${text.slice(0, 300)}`);
    const page = JSON.parse(text);
    pages++;
    for (const p of page.items) pods.push({ namespace: p.metadata.namespace, name: p.metadata.name, uid: p.metadata.uid });
    token = page.metadata?.continue ?? '';
  } while (token);
  return { pods, pages };
}

async function deleteAll(pods) {
  const failed = {};
  let deleted = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < pods.length) {
        const p = pods[next++];
        const { status } = await send('DELETE', `/api/v1/namespaces/${p.namespace}/pods/${p.name}`, { preconditions: { uid: p.uid } }, false);
        if (status === 200 || status === 202) deleted++;
        else failed[status] = (failed[status] ?? 0) + 1;
      }
    }),
  );
  return { deleted, failed };
}

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const { pods, pages } = await list();
const listCpuMs = cpuMs(cpu0);
const cpu1 = process.cpuUsage();
const t1 = performance.now();
const { deleted, failed } = await deleteAll(pods);
const t2 = performance.now();
const deleteCpuMs = cpuMs(cpu1);
agent.destroy();
process.stdout.write(
  JSON.stringify({
    listed: pods.length,
    deleted,
    failed,
    pages,
    listSeconds: (t1 - t0) / 1000,
    writeSeconds: (t2 - t1) / 1000,
    cpuMs: { list: listCpuMs, delete: deleteCpuMs, process: cpuMs() },
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  }) + '\n',
);

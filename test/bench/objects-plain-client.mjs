// The objects' ceiling (issue 45): the least a program can do to remove one namespace's
// finished Jobs, as plain-client.mjs is for pods. Plain node:https, no Kubernetes client: a
// LIST of the namespace's Jobs (pages of 500), then one DELETE per Job with its uid and
// resourceVersion as preconditions and propagationPolicy Background (as kube-tidy and the TTL
// controller delete them), 32 in flight over one keep-alive agent. An answer is read to its end
// and not decoded: its status says all the loop needs.
//
// stdin: { server, ca, cert?, key?, authorization?, namespace } (ceiling.ts `connection` plus
// the namespace). stdout, one JSON line: listed, deleted, failed (status -> count), seconds and
// its own CPU (process.cpuUsage(), ms) for the list and for the deletes.
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
const jobs = `/apis/batch/v1/namespaces/${encodeURIComponent(input.namespace)}/jobs`;

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
  const found = [];
  let token = '';
  do {
    const q = new URLSearchParams({ limit: '500' });
    if (token) q.set('continue', token);
    const { status, text } = await send('GET', `${jobs}?${q}`, undefined, true);
    if (status !== 200) throw new Error(`LIST answered ${status}: ${text.slice(0, 300)}`);
    const page = JSON.parse(text);
    for (const j of page.items) found.push({ name: j.metadata.name, uid: j.metadata.uid, resourceVersion: j.metadata.resourceVersion });
    token = page.metadata?.continue ?? '';
  } while (token);
  return found;
}

async function deleteAll(found) {
  const failed = {};
  let deleted = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < found.length) {
        const j = found[next++];
        const body = { preconditions: { uid: j.uid, resourceVersion: j.resourceVersion }, propagationPolicy: 'Background' };
        const { status } = await send('DELETE', `${jobs}/${encodeURIComponent(j.name)}`, body, false);
        if (status === 200 || status === 202) deleted++;
        else failed[status] = (failed[status] ?? 0) + 1;
      }
    }),
  );
  return { deleted, failed };
}

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const found = await list();
const listCpuMs = cpuMs(cpu0);
const cpu1 = process.cpuUsage();
const t1 = performance.now();
const { deleted, failed } = await deleteAll(found);
const t2 = performance.now();
const deleteCpuMs = cpuMs(cpu1);
agent.destroy();
process.stdout.write(
  JSON.stringify({
    listed: found.length,
    deleted,
    failed,
    listSeconds: (t1 - t0) / 1000,
    writeSeconds: (t2 - t1) / 1000,
    cpuMs: { list: listCpuMs, delete: deleteCpuMs },
  }) + '\n',
);

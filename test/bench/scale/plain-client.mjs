// The ceiling's client (issue 35): the least a program can do to remove the scale population's
// Failed pods, so that its deletes/s is the API server's ceiling and its CPU the floor a
// removal costs a client. Plain node:https, no Kubernetes client, no TypeScript loader: a LIST
// of the Failed pods (field and label selector, pages of 5,000), then one DELETE per pod with
// its uid as precondition, 32 in flight over one keep-alive agent (one TLS handshake per
// socket; ../plain-https.mjs, shared with the objects' ceiling). An answer is read to its end and
// not decoded: its status says all the loop needs.
//
// Its parent (ceiling.ts) hands it the connection on stdin as one JSON object:
//   { server, ca, cert?, key?, authorization? }   (authorization: the whole header value)
// and reads one JSON line from stdout: deleted, failed (status -> count), listSeconds, pages,
// writeSeconds, and its own CPU (process.cpuUsage(), ms) for the list, for the deletes and for
// the whole process (its start, module loading and TLS set-up included), and its peak RSS.
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URLSearchParams } from 'node:url';
import { cpuMs, deleteEach, plainHttps, readInput } from '../plain-https.mjs';

const { send, close } = plainHttps(await readInput());

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

const deleteAll = (pods) =>
  deleteEach(send, pods, (p) => ({ path: `/api/v1/namespaces/${p.namespace}/pods/${p.name}`, body: { preconditions: { uid: p.uid } } }));

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const { pods, pages } = await list();
const listCpuMs = cpuMs(cpu0);
const cpu1 = process.cpuUsage();
const t1 = performance.now();
const { deleted, failed } = await deleteAll(pods);
const t2 = performance.now();
const deleteCpuMs = cpuMs(cpu1);
const deleteSystemMs = process.cpuUsage(cpu1).system / 1000;
close();
process.stdout.write(
  JSON.stringify({
    listed: pods.length,
    deleted,
    failed,
    pages,
    listSeconds: (t1 - t0) / 1000,
    writeSeconds: (t2 - t1) / 1000,
    cpuMs: { list: listCpuMs, delete: deleteCpuMs, deleteSystem: deleteSystemMs, process: cpuMs() },
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  }) + '\n',
);

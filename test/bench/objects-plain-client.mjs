// The objects' ceiling (issue 45): the least a program can do to remove one namespace's
// finished Jobs, as plain-client.mjs is for pods. Plain node:https, no Kubernetes client: a
// LIST of the namespace's Jobs (pages of 500), then one DELETE per Job with its uid and
// resourceVersion as preconditions and propagationPolicy Background (as kube-tidy and the TTL
// controller delete them), 32 in flight over one keep-alive agent (plain-https.mjs, shared with
// plain-client.mjs). An answer is read to its end and not decoded: its status says all the loop needs.
//
// stdin: { server, ca, cert?, key?, authorization?, namespace, resources? } (ceiling.ts
// `connection` plus the namespace; `resources`: the collections to empty, each an API path
// prefix and plural such as {root: '/api/v1', plural: 'configmaps'}, in turn; default the Jobs,
// and ttl-cost.ts names ConfigMaps and Deployments). stdout, one JSON line: listed, deleted, failed (status -> count), seconds and
// its own CPU (process.cpuUsage(), ms) for the list and for the deletes.
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URLSearchParams } from 'node:url';
import { cpuMs, deleteEach, plainHttps, readInput } from './plain-https.mjs';

const input = await readInput();
const { send, close } = plainHttps(input);
const collections = (input.resources ?? [{ root: '/apis/batch/v1', plural: 'jobs' }]).map(
  (r) => `${r.root}/namespaces/${encodeURIComponent(input.namespace)}/${r.plural}`,
);

async function listOne(collection) {
  const found = [];
  let token = '';
  do {
    const q = new URLSearchParams({ limit: '500' });
    if (token) q.set('continue', token);
    const { status, text } = await send('GET', `${collection}?${q}`, undefined, true);
    if (status !== 200) throw new Error(`LIST answered ${status}: ${text.slice(0, 300)}`);
    const page = JSON.parse(text);
    for (const j of page.items)
      found.push({ path: `${collection}/${encodeURIComponent(j.metadata.name)}`, uid: j.metadata.uid, resourceVersion: j.metadata.resourceVersion });
    token = page.metadata?.continue ?? '';
  } while (token);
  return found;
}

async function list() {
  const found = [];
  for (const c of collections) found.push(...(await listOne(c)));
  return found;
}

// Deleted as kube-tidy and the TTL controller delete them: uid and resourceVersion as preconditions, Background.
const deleteAll = (found) =>
  deleteEach(send, found, (j) => ({
    path: j.path,
    body: { preconditions: { uid: j.uid, resourceVersion: j.resourceVersion }, propagationPolicy: 'Background' },
  }));

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const found = await list();
const listCpuMs = cpuMs(cpu0);
const cpu1 = process.cpuUsage();
const t1 = performance.now();
const { deleted, failed } = await deleteAll(found);
const t2 = performance.now();
const deleteCpuMs = cpuMs(cpu1);
close();
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

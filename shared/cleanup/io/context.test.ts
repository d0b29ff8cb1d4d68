// What fetchContext says it sent, through the real client (kubeClients' middleware) against a
// stub HTTP server: the requests that left, a LIST the API server throttled and that was sent
// again included (a request counted per LIST made would miss it).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { kubeClients, type KubeClients } from '../../kube/clients.js';
import type { PassSettings } from '../handle.js';
import { fetchContext, fetchOwnerGroup } from './context.js';
import type { Pod } from '../../model/objects.js';
import { stubKubeConfig } from '../../../test/fixtures/offline.js';

const seen: string[] = [];
let throttleNext = false;
let server: Server;
let clients: KubeClients;

const list = (names: string[], next?: string) => ({
  kind: 'List',
  apiVersion: 'v1',
  metadata: next ? { continue: next } : {},
  items: names.map((name) => ({ metadata: { name, namespace: 'ns', uid: name } })),
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    seen.push(`${url.pathname}${url.searchParams.get('continue') ? ` continue=${url.searchParams.get('continue')}` : ''}`);
    // API Priority and Fairness's answer: plain text, which the client pauses on and sends again.
    if (throttleNext) {
      throttleNext = false;
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1' }).end('Too many requests, please try again later.');
      return;
    }
    const body =
      url.pathname === '/api/v1/nodes' ? list(['n1']) : url.searchParams.get('continue') ? list(['p2']) : ((throttleNext = true), list(['p1'], 'page-2'));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const kc = stubKubeConfig((server.address() as AddressInfo).port);
  clients = kubeClients(kc, { timeoutMs: 5_000, keepAlive: false });
});

afterAll(async () => {
  clients.close();
  await new Promise((ok) => server.close(ok));
});

const settings: PassSettings = { pageSize: 1, concurrency: 1, budgetMs: 10_000, eventsPerPass: 0, protectedNamespaces: [], recordEvents: false, dryRun: false };
const none = { nodes: false, namespaces: false, pdbs: false, priorityClasses: false, pvcs: false, allPods: false };

describe('fetchContext', () => {
  it('counts every request it sent, a throttled LIST page sent again as two', async () => {
    const got = await fetchContext({ reader: clients, settings }, { ...none, nodes: true, allPods: true });
    expect(got.snapshot.contextPods?.map((p) => p.metadata.name)).toEqual(['p1', 'p2']);
    expect(got.snapshot.nodes).toHaveLength(1);
    // The nodes, the first page of pods, the second page throttled (429) and the same page again.
    expect([...seen].sort()).toEqual(['/api/v1/nodes', '/api/v1/pods', '/api/v1/pods continue=page-2', '/api/v1/pods continue=page-2']);
    expect(got.requests).toBe(4);
    expect(clients.throttle.throttled).toBe(1);
  });

  it('sends nothing, and says so, when the policy reads nothing beyond the pods', async () => {
    seen.length = 0;
    expect(await fetchContext({ reader: clients, settings }, none)).toEqual({ snapshot: {}, requests: 0 });
    expect(seen).toEqual([]);
  });
});

// How the event path finds one pod's owner group (kubeTidy.retention) without listing every
// pod: the requests fetchOwnerGroup sends, against a stub API server of its own.
describe('fetchOwnerGroup', () => {
  const asked: { path: string; labelSelector: string | null; fieldSelector: string | null }[] = [];
  let jobs: unknown[] = [];
  let pods: unknown[] = [];
  let stub: Server;
  let client: KubeClients;

  beforeAll(async () => {
    stub = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://stub');
      asked.push({ path: url.pathname, labelSelector: url.searchParams.get('labelSelector'), fieldSelector: url.searchParams.get('fieldSelector') });
      const items = url.pathname.endsWith('/jobs') ? jobs : pods;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: {}, items }));
    });
    await new Promise<void>((ok) => stub.listen(0, '127.0.0.1', ok));
    client = kubeClients(stubKubeConfig((stub.address() as AddressInfo).port), { timeoutMs: 5_000, keepAlive: false });
  });

  afterAll(async () => {
    client.close();
    await new Promise((ok) => stub.close(ok));
  });

  beforeEach(() => {
    asked.length = 0;
    jobs = [];
    pods = [];
  });

  const groupSettings: PassSettings = {
    pageSize: 500,
    concurrency: 1,
    budgetMs: 10_000,
    eventsPerPass: 0,
    protectedNamespaces: [],
    recordEvents: false,
    dryRun: false,
  };
  const FINISHED = 'status.phase!=Pending,status.phase!=Running,status.phase!=Unknown';

  const owned = (name: string, kind: string, uid: string, labels: Record<string, string> = {}): Pod => ({
    metadata: { name, namespace: 'ns', uid: `pod-${name}`, labels, ownerReferences: [{ kind, name: `${kind}-${uid}`, uid, controller: true }] },
    status: { phase: 'Failed' },
  });
  const job = (uid: string, cronJob?: string) => ({
    metadata: {
      name: uid,
      namespace: 'ns',
      uid,
      ...(cronJob ? { ownerReferences: [{ kind: 'CronJob', name: cronJob, uid: cronJob, controller: true }] } : {}),
    },
  });

  it("a Job's pod: the namespace's Jobs, then the pods of its CronJob's Jobs by the controller-uid label", async () => {
    jobs = [job('j1', 'cron'), job('j2', 'cron'), job('j3', 'other'), job('j4')];
    const label = 'batch.kubernetes.io/controller-uid';
    pods = [owned('a', 'Job', 'j1', { [label]: 'j1' }), owned('b', 'Job', 'j2', { [label]: 'j2' })];
    const got = await fetchOwnerGroup(
      { reader: client, settings: groupSettings },
      owned('a', 'Job', 'j1', { [label]: 'j1', 'controller-uid': 'j1', 'job-name': 'x' }),
    );
    expect(asked).toEqual([
      { path: '/apis/batch/v1/namespaces/ns/jobs', labelSelector: null, fieldSelector: null },
      { path: '/api/v1/namespaces/ns/pods', labelSelector: `${label} in (j1,j2)`, fieldSelector: FINISHED },
    ]);
    expect(got.pods.map((p) => p.metadata.name)).toEqual(['a', 'b']);
    expect(got.jobs.get('j2')).toEqual({ kind: 'CronJob', name: 'cron', uid: 'cron' });
    expect(got.requests).toBe(2);
  });

  it('a Job of no CronJob whose pods carry only the older label: that label, that Job', async () => {
    jobs = [job('j4')];
    await fetchOwnerGroup({ reader: client, settings: groupSettings }, owned('a', 'Job', 'j4', { 'controller-uid': 'j4', 'job-name': 'x' }));
    expect(asked[1]).toEqual({ path: '/api/v1/namespaces/ns/pods', labelSelector: 'controller-uid in (j4)', fieldSelector: FINISHED });
  });

  it("any other owner's pod: its labels minus those that differ pod by pod, and only pods of the same controller uid", async () => {
    const labels = { app: 'web', 'pod-template-hash': '5d8f', 'controller-revision-hash': 'r1', 'statefulset.kubernetes.io/pod-name': 'web-0' };
    pods = [owned('a', 'StatefulSet', 's1', labels), owned('b', 'StatefulSet', 's1', labels), owned('c', 'StatefulSet', 's2', labels)];
    const got = await fetchOwnerGroup({ reader: client, settings: groupSettings }, owned('a', 'StatefulSet', 's1', labels));
    expect(asked).toEqual([{ path: '/api/v1/namespaces/ns/pods', labelSelector: 'app=web,pod-template-hash=5d8f', fieldSelector: FINISHED }]);
    expect(got.pods.map((p) => p.metadata.name)).toEqual(['a', 'b']);
  });

  it('a pod with no controller owner: no group, no request', async () => {
    const bare: Pod = {
      metadata: { name: 'a', namespace: 'ns', uid: 'a', ownerReferences: [{ kind: 'Job', name: 'j', uid: 'j' }] },
      status: { phase: 'Failed' },
    };
    expect(await fetchOwnerGroup({ reader: client, settings: groupSettings }, bare)).toEqual({ pods: [], jobs: new Map(), requests: 0 });
    expect(asked).toEqual([]);
  });
});

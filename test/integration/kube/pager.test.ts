// The one pager (shared/kube/pager.ts) through MultiKueue's collecting list, against the real
// API server: limit/continue over every page, the selector passed through, the requests
// counted. (The 410 recoveries: shared/kube/pager.test.ts; a test cluster cannot expire a
// continue token on demand.)
import { BatchV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { kubeClients } from '../../../shared/kube/clients.js';
import { BATCH_JOB } from '../../../shared/multikueue/core/kinds.js';
import { listEach } from '../../../shared/multikueue/io/list.js';
import { compactRemote } from '../../../shared/multikueue/io/compact.js';

const ns = testNamespace('kube-pager');
const kc = sharedCluster().kubeConfig();
const batch = kc.makeApiClient(BatchV1Api);
const clients = kubeClients(kc);
const names = ['j-0', 'j-1', 'j-2'];

beforeAll(async () => {
  // Suspended: no pods, only objects to list.
  for (const name of names)
    await batch.createNamespacedJob({
      namespace: ns.name,
      body: {
        metadata: { name, labels: { set: ns.name } },
        spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] } } },
      },
    });
});
afterAll(() => clients.close());

describe('listEach through the pager', () => {
  for (const row of [
    { sentence: 'limit 1 over 3 Jobs collects all 3, one request per page', limit: 1 },
    { sentence: 'the default limit collects all 3 in one request', limit: 500 },
  ])
    it(row.sentence, async () => {
      const got = await listEach(clients, BATCH_JOB, compactRemote, `set=${ns.name}`, row.limit);
      expect(got.items.map((j) => `${j.metadata.namespace}/${j.metadata.name}`).sort()).toEqual(names.map((n) => `${ns.name}/${n}`));
      // With a selector the server may end on an empty page: at least one request per item.
      if (row.limit === 1) expect(got.requests).toBeGreaterThanOrEqual(3);
      else expect(got.requests).toBe(1);
    });
});

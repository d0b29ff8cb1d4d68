// kubeClients against the real API server: TLS trust carries over to the shared
// keep-alive agent, and connections are really kept (client-node alone closes each one).
import { afterAll, describe, expect, it } from 'vitest';
import { sharedCluster } from '../../harness/index.js';
import { kubeClients } from '../../../shared/kube/index.js';

const opened: { close(): void }[] = [];
afterAll(() => opened.forEach((c) => c.close()));

describe('kubeClients', () => {
  for (const row of [
    { sentence: 'with keep-alive the API server keeps the connection open', keepAlive: true, connection: undefined },
    { sentence: 'without keep-alive (client-node as is) the API server closes every connection', keepAlive: false, connection: 'close' },
  ]) {
    it(row.sentence, async () => {
      const clients = kubeClients(sharedCluster().kubeConfig(), { keepAlive: row.keepAlive });
      opened.push(clients);
      for (let i = 0; i < 3; i++) {
        const reply = await clients.core.readNamespaceWithHttpInfo({ name: 'default' });
        expect(reply.httpStatusCode).toBe(200);
        expect(reply.headers.connection).toBe(row.connection);
      }
    });
  }
});

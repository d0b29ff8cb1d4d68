import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTP } from 'cloudevents';
import { describe, expect, it } from 'vitest';
import { podDecisionEvent } from './build.js';
import { httpRequestOf, pubSubMessageOf, senderFor } from './sink.js';

const event = podDecisionEvent(
  { id: 'id-1', time: Date.UTC(2026, 0, 2, 3, 4, 5), source: 'https://prod.example.com/kube-tidy' },
  {
    namespace: 'ml',
    name: 'train-1',
    uid: 'u-1',
    strategy: 'RemoveFailedPods',
    profile: 'default',
    reason: 'Failed',
    action: 'delete',
    outcome: 'deleted',
    dryRun: false,
    origin: 'sweep',
    pass: 'p1',
  },
);

describe('on the wire', () => {
  it('HTTP binary mode: every attribute a ce- header, the data the JSON body', async () => {
    const { headers, body } = await httpRequestOf(event);
    expect(headers).toMatchObject({
      'ce-specversion': '1.0',
      'ce-id': 'id-1',
      'ce-type': 'dev.kube-tidy.pod.deleted.v1',
      'ce-source': 'https://prod.example.com/kube-tidy/sweep',
      'ce-subject': 'namespaces/ml/pods/train-1',
      'ce-time': '2026-01-02T03:04:05.000Z',
      'ce-dataschema': 'https://kube-tidy.dev/schemas/events/pod-decision.v1.json',
      'ce-namespace': 'ml',
      'ce-strategy': 'RemoveFailedPods',
      'ce-origin': 'sweep',
      'ce-dryrun': 'false',
    });
    expect(headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(body)).toEqual(event.data);
    // The SDK's own reader gets the same event back.
    const back = HTTP.toEvent({ headers, body }) as { type: string; data: unknown; subject: string };
    expect(back.type).toBe(event.type);
    expect(back.subject).toBe(event.subject);
    expect(back.data).toEqual(event.data);
  });

  it('the Pub/Sub binding: ce- attributes and content-type, the data as the message body', async () => {
    const m = await pubSubMessageOf(event);
    expect(m.attributes).toMatchObject({
      'ce-id': 'id-1',
      'ce-type': 'dev.kube-tidy.pod.deleted.v1',
      'ce-source': 'https://prod.example.com/kube-tidy/sweep',
      'ce-subject': 'namespaces/ml/pods/train-1',
      'ce-specversion': '1.0',
      'ce-dataschema': 'https://kube-tidy.dev/schemas/events/pod-decision.v1.json',
      'ce-dryrun': 'false',
      'content-type': 'application/json',
    });
    expect(JSON.parse(Buffer.from(m.data, 'base64').toString('utf8'))).toEqual(event.data);
  });

  it('the HTTP sender posts to the sink, and rejects what the sink did not accept', async () => {
    const got: unknown[] = [];
    let status = 202;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        got.push(HTTP.toEvent({ headers: req.headers, body }));
        res.writeHead(status).end();
      });
    }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const send = senderFor({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
      await send(event, new AbortController().signal);
      expect(got).toHaveLength(1);
      expect((got[0] as { id: string }).id).toBe('id-1');
      status = 500;
      await expect(send(event, new AbortController().signal)).rejects.toThrow(/500/);
    } finally {
      server.close();
    }
  });
});

// TEST STAND-IN for Google Cloud Pub/Sub and an Eventarc trigger, which this machine cannot
// reach: just enough of both to carry a sweep's shards on the GCP path. Each rule it plays:
//  P1 `POST /v1/{topic}:publish` takes {messages: [{data (base64), attributes}]} and answers
//     {messageIds: [...]}, one id per message in order (REST reference, projects.topics.publish).
//  P2 Like the emulator (PUBSUB_EMULATOR_HOST), it asks for no credentials.
//  P3 An unknown topic is 404 NOT_FOUND (REST reference, error codes).
//  E1 Eventarc delivers each message to the service as a CloudEvent of type
//     google.cloud.pubsub.topic.v1.messagePublished, source //pubsub.googleapis.com/{topic},
//     data {message: {data, attributes, messageId, publishTime}, subscription}
//     (google-cloudevents, MessagePublishedData; Eventarc "Pub/Sub event format").
//  E2 A non-2xx answer is not an acknowledgement: the message is delivered again (Eventarc
//     "Retry events": at-least-once). The test decides when.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { CloudEvent } from 'cloudevents';
import { httpMessage, type HttpMessage, type PubSubMessage } from '../../../shared/cloudevents/index.js';

export interface PubSubStandIn {
  /** For PUBSUB_EMULATOR_HOST. */
  host: string;
  /** What was published to the topic, in order. */
  published: (PubSubMessage & { messageId: string })[];
  /** A published message as Eventarc's trigger would POST it to the Cloud Run service (E1). */
  delivery(i: number): HttpMessage;
  server: Server;
}

export async function pubSubStandIn(topic: string): Promise<PubSubStandIn> {
  const published: PubSubStandIn['published'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const m = /^\/v1\/(.+):publish$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m) return json(404, { error: { code: 404, status: 'NOT_FOUND', message: 'no such method' } });
      if (m[1] !== topic) return json(404, { error: { code: 404, status: 'NOT_FOUND', message: `Resource not found (resource=${m[1]}).` } });
      const messages = (JSON.parse(body) as { messages: PubSubMessage[] }).messages;
      const ids = messages.map((msg) => {
        const messageId = String(published.length + 1);
        published.push({ ...msg, messageId });
        return messageId;
      });
      json(200, { messageIds: ids });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  const delivery = (i: number): HttpMessage => {
    const msg = published[i]!;
    return httpMessage(
      new CloudEvent({
        specversion: '1.0',
        id: msg.messageId,
        type: 'google.cloud.pubsub.topic.v1.messagePublished',
        source: `//pubsub.googleapis.com/${topic}`,
        datacontenttype: 'application/json',
        data: {
          message: { data: msg.data, attributes: msg.attributes, messageId: msg.messageId, publishTime: new Date().toISOString() },
          subscription: `${topic.replace('/topics/', '/subscriptions/')}-eventarc`,
        },
      }),
    );
  };
  return { host, published, delivery, server };
}

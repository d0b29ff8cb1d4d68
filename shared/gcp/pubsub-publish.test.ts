import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MetadataTokens } from './metadata-token.js';
import { publish } from './pubsub-publish.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server answering with `answer`; what it was asked is kept in `seen`. */
async function local(answer: (s: Seen) => [number, unknown]) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(s);
      const [status, json] = answer(s);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return { host: `127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}
const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => void servers.splice(0).forEach((s) => s.close()));

const topic = 'projects/my-proj/topics/kube-tidy-sweep-shards';
const message = { data: Buffer.from('{"a":1}').toString('base64'), attributes: { 'ce-type': 't' } };

describe('publishing to Pub/Sub over REST', () => {
  it('POSTs {messages} to <topic>:publish and returns the message ids (an emulator: plain HTTP, no token)', async () => {
    const emu = await local(() => [200, { messageIds: ['7'] }]);
    expect(await publish({ topic, emulatorHost: emu.host }, [message])).toEqual(['7']);
    expect(emu.seen).toHaveLength(1);
    expect(emu.seen[0]).toMatchObject({ method: 'POST', url: `/v1/${topic}:publish` });
    expect(emu.seen[0]!.headers.authorization).toBeUndefined();
    expect(JSON.parse(emu.seen[0]!.body)).toEqual({ messages: [message] });
  });

  it('throws on a refusal (a missing publisher role is a 403) and on an answer without one id per message', async () => {
    const denied = await local(() => [403, { error: { code: 403, status: 'PERMISSION_DENIED' } }]);
    await expect(publish({ topic, emulatorHost: denied.host }, [message])).rejects.toThrow(/HTTP 403 .*PERMISSION_DENIED/);
    const short = await local(() => [200, { messageIds: [] }]);
    await expect(publish({ topic, emulatorHost: short.host }, [message])).rejects.toThrow(/expected 1 message ids/);
  });

  it('takes a token from the metadata server with Metadata-Flavor: Google, once while it is valid', async () => {
    const md = await local(() => [200, { access_token: 'ya29.tok', expires_in: 3599, token_type: 'Bearer' }]);
    const tokens = new MetadataTokens();
    expect(await tokens.token(md.host)).toBe('ya29.tok');
    expect(await tokens.token(md.host)).toBe('ya29.tok');
    expect(md.seen).toHaveLength(1);
    expect(md.seen[0]).toMatchObject({ method: 'GET', url: '/computeMetadata/v1/instance/service-accounts/default/token' });
    expect(md.seen[0]!.headers['metadata-flavor']).toBe('Google');
  });

  it('refuses a metadata answer without a token', async () => {
    const md = await local(() => [200, { token_type: 'Bearer' }]);
    await expect(new MetadataTokens().token(md.host)).rejects.toThrow(/no access_token/);
  });
});

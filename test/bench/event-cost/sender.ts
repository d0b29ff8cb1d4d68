// The storm's sender: each Failed pod once, as the Knative ApiServerSource `update` event of
// its stored object (Resource mode, binary mode over HTTP), `inFlight` at a time, as a source
// or a broker delivering a backlog does. The messages are built before the clock starts: the
// bench measures the receiver, and the sender's CPU is taken from the same two cores, so it
// is measured too (`sendStorm`'s cpuMs) and kept small: by default plain node:http over
// `inFlight` kept-alive sockets, as Knative's Go sender sends (EVENT_COST_SENDER=fetch: Node's
// fetch, as the tables before it was measured; it cost the two cores about as much as the
// receiver did).
import { Agent, request } from 'node:http';
import { httpMessage, toApiServerSourceEvent, type KubeObject } from '../../../shared/cloudevents/index.js';

export interface StormMessage {
  headers: Record<string, string>;
  body: string;
}

export type SenderKind = 'http' | 'fetch';

export const senderKind = (value = process.env.EVENT_COST_SENDER ?? 'http'): SenderKind => {
  if (value !== 'http' && value !== 'fetch') throw new Error(`EVENT_COST_SENDER: http or fetch, not ${value}`);
  return value;
};

/** One update event per pod, from the API server at `server`; `authorization`: the sender's token, as Knative's OIDC sender sends it. */
export function stormMessages(pods: KubeObject[], server: string, authorization?: string): StormMessage[] {
  return pods.map((pod) => {
    const m = httpMessage(toApiServerSourceEvent('update', pod, server));
    return { headers: { ...m.headers, ...(authorization ? { authorization } : {}) }, body: m.body };
  });
}

type Post = (m: StormMessage) => Promise<{ status: number; text: string }>;

function fetchPost(url: string): Post {
  return async (m) => {
    const res = await fetch(url, { method: 'POST', headers: m.headers, body: m.body, signal: AbortSignal.timeout(120_000) });
    return { status: res.status, text: await res.text() };
  };
}

function httpPost(url: string, agent: Agent): Post {
  return (m) =>
    new Promise((resolve, reject) => {
      const body = Buffer.from(m.body);
      const req = request(url, { method: 'POST', agent, timeout: 120_000, headers: { ...m.headers, 'content-length': body.length } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('no answer in 120 s')));
      req.on('error', reject);
      req.end(body);
    });
}

/**
 * Sends every message to `url`, `inFlight` at a time: each answer's outcome (`http <status>`
 * for anything but 200), and the sender's own CPU over the sending (this process's, ms).
 */
export async function sendStorm(url: string, messages: StormMessage[], inFlight: number, kind: SenderKind = senderKind()) {
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  const post = kind === 'fetch' ? fetchPost(url) : httpPost(url, agent);
  const outcomes: string[] = [];
  let next = 0;
  const cpu0 = process.cpuUsage();
  try {
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < messages.length) {
          const { status, text } = await post(messages[next++]!);
          outcomes.push(status === 200 ? String((JSON.parse(text) as { outcome?: string }).outcome) : `http ${status}`);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  const cpu = process.cpuUsage(cpu0);
  return { outcomes, cpuMs: (cpu.user + cpu.system) / 1000 };
}

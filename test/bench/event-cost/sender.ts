// The storm's sender: each Failed pod once, as the Knative ApiServerSource `update` event of
// its stored object (Resource mode, binary mode over HTTP), `inFlight` at a time, as a source
// or a broker delivering a backlog does. The messages are built before the clock starts: the
// bench measures the receiver, and its own CPU is taken from the same two cores.
import { httpMessage, toApiServerSourceEvent, type KubeObject } from '../../../shared/cloudevents/index.js';

export interface StormMessage {
  headers: Record<string, string>;
  body: string;
}

/** One update event per pod, from the API server at `server`; `authorization`: the sender's token, as Knative's OIDC sender sends it. */
export function stormMessages(pods: KubeObject[], server: string, authorization?: string): StormMessage[] {
  return pods.map((pod) => {
    const m = httpMessage(toApiServerSourceEvent('update', pod, server));
    return { headers: { ...m.headers, ...(authorization ? { authorization } : {}) }, body: m.body };
  });
}

/** Sends every message to `url`, `inFlight` at a time: each answer's outcome (`http <status>` for anything but 200). */
export async function sendStorm(url: string, messages: StormMessage[], inFlight: number): Promise<string[]> {
  const outcomes: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < messages.length) {
        const m = messages[next++]!;
        const res = await fetch(url, { method: 'POST', headers: m.headers, body: m.body, signal: AbortSignal.timeout(120_000) });
        const body = (await res.json()) as { outcome?: string };
        outcomes.push(res.status === 200 ? String(body.outcome) : `http ${res.status}`);
      }
    }),
  );
  return outcomes;
}

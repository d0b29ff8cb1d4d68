// The fence on every write of the standalone process: each client the one writer
// (kube/writer.ts) is given is wrapped so that a write method (create*, delete*, patch*,
// replace*) asks `holds()` (leader.ts: the Lease is known to be held, by the local monotonic
// clock) right before the request is made, and is never sent when it says no. Reads pass. The
// Lease's own client is not wrapped (it is not the writer's). A fenced write is a
// TransientKubeError (reason Fenced): the pod, the Event, the ledger entry are left untouched
// for the replica that does hold the Lease, the way a 503 from the API server leaves them:
// the pass in flight sends nothing more (act.ts counts each removal `failed`) and its answer is
// one 503, not a storm: no event still queued reaches a target (dispatch.ts), and a replica
// that lost its Lease exits. Not a refusal (500): nothing is wrong with the request, only
// with who would send it; retried, it is sent by the replica that holds the Lease.
import type { KubeClients } from '../../kube/clients.js';
import { TransientKubeError } from '../../kube/errors.js';

/** A write not sent because this replica does not (or no longer) hold the Lease. */
export class FencedError extends TransientKubeError {
  constructor(what: string) {
    const message = 'not sent: this replica does not hold the Lease (fenced)';
    super(`${what}: ${message}`, { kind: 'transient', reason: 'Fenced', message, causes: [] });
  }
}

const WRITE = /^(create|delete|patch|replace)/;

/** `api` with every write method fenced by `holds`. */
export function fencedApi<T extends object>(api: T, holds: () => boolean): T {
  return new Proxy(api, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || typeof key !== 'string' || !WRITE.test(key)) return value;
      return (...args: unknown[]): unknown => {
        if (!holds()) return Promise.reject(new FencedError(key));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

const APIS = ['core', 'events', 'custom', 'policy', 'scheduling', 'podWrites', 'objectWrites'] as const;

/** The clients a writer is given, every API of them fenced (the rate limit and close kept). */
export function fencedClients<C extends Partial<KubeClients>>(clients: C, holds: () => boolean): C {
  const out: Record<string, unknown> = { ...clients };
  for (const k of APIS) if (clients[k]) out[k] = fencedApi(clients[k], holds);
  return out as C;
}

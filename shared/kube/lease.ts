// The Lease a standalone replica holds to be the one that acts (coordination.k8s.io/v1).
// Writes are optimistic: every update carries the resourceVersion it was decided on, so two
// replicas that read the same Lease cannot both take it (the second gets 409 Conflict). The
// decision itself is pure: shared/hosts/standalone/core/election.ts. Not through the writer: the
// Lease is kube-tidy's own bookkeeping, never subject to DRY_RUN or protected namespaces.
// Through the one client factory, for its request timeout above all: a renewal that hangs must
// end before the renew deadline, or the leader would go on acting after its Lease expired.
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { MetricsRecorder } from '../metrics/recorder.js';
import type { LeaseSpec } from '../model/lease.js';
import { clientConfiguration } from './clients.js';
import { classifyKubeError, KubeError } from './errors.js';
import { UnsafeRequestError } from './request-lifecycle.js';
import { PART_OF_LABELS } from '../model/keys.js';
import { readOrAbsent } from './read.js';

export interface LeaseRef {
  namespace: string;
  name: string;
}

export interface ObservedLease {
  spec: LeaseSpec;
  resourceVersion: string;
}

/** `refused`: no retry mends it (leaseRefused); the election ends rather than ask again forever. */
export type LeaseWrite = { ok: true; lease: ObservedLease } | { ok: false; conflict: boolean; refused?: boolean; error: string };

/**
 * A failure no retry mends: the client's own refusal to send (a name that would reshape the
 * path) or the API server's 400, 403, 422 or another 4xx. A timeout, a 5xx, a 429, a conflict
 * or a 401 (credentials are re-read: a rotated token mends it) is worth another round.
 */
export function leaseRefused(e: unknown): boolean {
  if (e instanceof UnsafeRequestError) return true;
  const kind = e instanceof KubeError ? e.kind : classifyKubeError(e).kind;
  return kind === 'forbidden' || kind === 'invalid' || kind === 'rejected';
}

/** What the election reads, and its three writes. */
export interface LeaseClient {
  read(): Promise<ObservedLease | undefined>;
  create(spec: LeaseSpec): Promise<LeaseWrite>;
  update(spec: LeaseSpec, resourceVersion: string): Promise<LeaseWrite>;
}

// Times must be V1MicroTime: the API server parses them with exactly six fraction digits, and
// only V1MicroTime (not a plain Date) serialises them so (a Date answers 400).
const toBody = (ref: LeaseRef, spec: LeaseSpec, resourceVersion?: string): V1Lease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: ref.name, namespace: ref.namespace, ...(resourceVersion ? { resourceVersion } : {}), labels: { ...PART_OF_LABELS } },
  spec: {
    ...(spec.holderIdentity ? { holderIdentity: spec.holderIdentity } : {}),
    ...(spec.leaseDurationSeconds ? { leaseDurationSeconds: spec.leaseDurationSeconds } : {}),
    ...(spec.acquireTime ? { acquireTime: new V1MicroTime(spec.acquireTime) } : {}),
    ...(spec.renewTime ? { renewTime: new V1MicroTime(spec.renewTime) } : {}),
    ...(spec.leaseTransitions !== undefined && spec.leaseTransitions !== null ? { leaseTransitions: spec.leaseTransitions } : {}),
  } as V1Lease['spec'],
});

const toSpec = (l: V1Lease): ObservedLease => {
  const s = l.spec ?? {};
  const time = (t: unknown) => (t instanceof Date ? t.toISOString() : typeof t === 'string' ? t : null);
  return {
    resourceVersion: l.metadata?.resourceVersion ?? '',
    spec: {
      holderIdentity: s.holderIdentity ?? null,
      leaseDurationSeconds: s.leaseDurationSeconds ?? null,
      acquireTime: time(s.acquireTime),
      renewTime: time(s.renewTime),
      leaseTransitions: s.leaseTransitions ?? null,
    },
  };
};

/** `timeoutMs`: each request's, below the renew deadline. `metrics`: where its requests are counted (the host's recorder). */
export function leaseClient(kc: KubeConfig, ref: LeaseRef, { timeoutMs, metrics }: { timeoutMs: number; metrics?: MetricsRecorder }): LeaseClient {
  const api = new CoordinationV1Api(clientConfiguration(kc, { timeoutMs, ...(metrics ? { metrics } : {}) }).configuration);
  const failed = (e: unknown): LeaseWrite => ({
    ok: false,
    conflict: classifyKubeError(e).kind === 'conflict',
    refused: leaseRefused(e),
    error: (e as Error).message?.split('\n')[0] ?? String(e),
  });
  return {
    read: async () => {
      const lease = await readOrAbsent(`read lease ${ref.namespace}/${ref.name}`, () => api.readNamespacedLease(ref));
      return lease && toSpec(lease);
    },
    create: async (spec) => {
      try {
        return { ok: true, lease: toSpec(await api.createNamespacedLease({ namespace: ref.namespace, body: toBody(ref, spec) })) };
      } catch (e) {
        return failed(e);
      }
    },
    update: async (spec, resourceVersion) => {
      try {
        return { ok: true, lease: toSpec(await api.replaceNamespacedLease({ ...ref, body: toBody(ref, spec, resourceVersion) })) };
      } catch (e) {
        return failed(e);
      }
    },
  };
}

// The ObjectsHandle these tests run runObjectsPass with, built from the harness's clients as
// objectsHandle(rt) builds it from a runtime: the real writer (Events on), the real Brakes with
// its ledger in the test's namespace, the policy the test sets. Two seams, test-only, each the
// smallest that lets a test step in where the production code cannot be made to race on cue:
// `beforeDelete` runs just before the writer sends a DELETE (a claim's or a Workload's owner's
// after the pass's re-read and recheck, a Job's as it was listed), and `beforeOwnerRead` just
// before a Workload's owner is read again.
import { AppsV1Api, BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { brakesAdmission } from '../../../shared/brakes/io/admission.js';
import { Brakes } from '../../../shared/brakes/io/brakes.js';
import { DEFAULT_SWEEP_CONCURRENCY } from '../../../shared/cleanup/config.js';
import { kubeClients, type KubeClients } from '../../../shared/kube/clients.js';
import type { ObjectReads } from '../../../shared/kube/direct-objects.js';
import type { Resource } from '../../../shared/kube/direct-paths.js';
import { ClusterWriter, type Propagation } from '../../../shared/kube/writer.js';
import { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import type { StoredId } from '../../../shared/model/identity.js';
import { Notifier } from '../../../shared/notify/notifier.js';
import type { ObjectsHandle } from '../../../shared/objects/index.js';
import { loadPolicy } from '../../../shared/policy/load.js';
import type { Policy } from '../../../shared/policy/policy.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { Volumes } from './fixtures.js';
import type { RemovalTicket } from '../../../shared/kube/admission.js';
import type { PodEventSeries } from '../../../shared/kube/event-series.js';

/** What a DELETE is about to be sent for: a claim, or an object of any group (a Job, a Workload's owner). */
export type DeleteAbout = { kind: 'claim'; id: StoredId } | { kind: 'object'; gvr: Resource; id: StoredId };

export interface TestHandleOptions {
  clients: KubeClients;
  /** Where the brakes' ledger ConfigMap (kube-tidy-brakes) lives: the test's own namespace. */
  ledgerNamespace: string;
  /** The policy's `kubeTidy` section and top-level limits, as a policy file says them; changeable between passes. */
  policy: () => Record<string, unknown>;
  beforeDelete?: (about: DeleteAbout) => Promise<void>;
  beforeOwnerRead?: (at: { plural: string; namespace: string; name: string }) => Promise<void>;
  /** The process's Event series the writer counts removals into, as the runtime's writer does (runtime.ts); none: an Event each. */
  series?: PodEventSeries;
}

const log = pino({ level: 'silent' });

/** A descheduler policy file with nothing in its profiles, and what the test adds. */
export const policyOf = (extra: Record<string, unknown>): Policy =>
  loadPolicy({ apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', profiles: [{ name: 'p', pluginConfig: [], plugins: {} }], ...extra }).policy;

/** The one writer, with the test's hook run just before each DELETE it sends. */
class HookedWriter extends ClusterWriter {
  constructor(
    clients: KubeClients,
    dryRun: boolean,
    private readonly hook: TestHandleOptions['beforeDelete'],
    series?: PodEventSeries,
  ) {
    super(clients, { dryRun, recordEvents: true, protectedNamespaces: [], ...(series && !dryRun ? { series } : {}) });
  }

  override async deleteClaim(claim: StoredId, ticket: RemovalTicket) {
    await this.hook?.({ kind: 'claim', id: claim });
    return super.deleteClaim(claim, ticket);
  }

  override async deleteAsRead(resource: Resource, id: StoredId, ticket: RemovalTicket, opts: { propagationPolicy?: Propagation } = {}) {
    await this.hook?.({ kind: 'object', gvr: resource, id });
    return super.deleteAsRead(resource, id, ticket, opts);
  }
}

/** The objects' direct reads, with the test's hook run before a GET of anything but a Workload (a Workload's owner). */
function hookedReads(reads: ObjectReads, hook: TestHandleOptions['beforeOwnerRead']): ObjectReads {
  if (!hook) return reads;
  return {
    list: (r, namespace, page) => reads.list(r, namespace, page),
    discover: (group, version) => reads.discover(group, version),
    get: async <T>(r: Resource, namespace: string | undefined, name: string) => {
      if (r.plural !== 'workloads') await hook({ plural: r.plural, namespace: namespace ?? '', name });
      return reads.get<T>(r, namespace, name);
    },
  };
}

export interface TestHandle {
  handle: ObjectsHandle;
  brakes: Brakes;
  close(): void;
}

export function testHandle(o: TestHandleOptions): TestHandle {
  const writer = (dryRun: boolean) => new HookedWriter(o.clients, dryRun, o.beforeDelete, o.series);
  const brakes = new Brakes({ core: o.clients.core, writer: writer(false), namespace: o.ledgerNamespace, dryRun: false, now: Date.now, log });
  const policy = () => policyOf(o.policy());
  const reader = { ...o.clients, objectReads: hookedReads(o.clients.objectReads, o.beforeOwnerRead) };
  const handle: ObjectsHandle = {
    settings: { protectedNamespaces: [], dryRun: false, concurrency: DEFAULT_SWEEP_CONCURRENCY },
    policy,
    reader,
    writer: ({ dryRun }) => writer(dryRun),
    admission: ({ dryRun }) =>
      dryRun
        ? brakesAdmission({
            brakes: new Brakes({ core: o.clients.core, writer: writer(true), namespace: o.ledgerNamespace, dryRun: true, now: Date.now, log }),
            policy,
            writer: writer(true),
            log,
            path: 'objects',
          })
        : brakesAdmission({ brakes, policy, writer: writer(false), log, path: 'objects' }),
    now: Date.now,
    log,
    notifier: Notifier.off(),
    metrics: MetricsRecorder.off(),
  };
  return { handle, brakes, close: () => brakes.close() };
}

/** A test file's shared-cluster setup: its namespace, clients, the volumes it made, and handles closed after it. */
export function objectsSuite(prefix: string) {
  const ns = testNamespace(prefix);
  const kc = () => sharedCluster().kubeConfig();
  const core = () => kc().makeApiClient(CoreV1Api);
  const volumes = new Volumes(core);
  const handles: TestHandle[] = [];
  let clients: KubeClients | undefined;
  beforeAll(() => void (clients = kubeClients(kc())));
  afterAll(async () => {
    for (const h of handles) h.close();
    clients?.close();
    await volumes.removeAll();
  });
  return {
    ns,
    core,
    batch: () => kc().makeApiClient(BatchV1Api),
    apps: () => kc().makeApiClient(AppsV1Api),
    volumes,
    clients: () => clients!,
    /** A handle over this file's clients, its ledger in the file's namespace. */
    handle(o: Omit<TestHandleOptions, 'clients' | 'ledgerNamespace'>): TestHandle {
      const h = testHandle({ clients: clients!, ledgerNamespace: ns.name, ...o });
      handles.push(h);
      return h;
    },
  };
}

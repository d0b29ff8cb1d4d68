import type { Pod } from '../../model/objects.js';
import { toKubeError } from '../../kube/errors.js';
import { listPods } from '../../kube/list.js';
import { tallied } from '../../kube/request-tally.js';
import type { SnapshotNeeds } from '../../plan/needs.js';
import type { Snapshot } from '../../plan/snapshot.js';
import type { CleanupHandle } from '../handle.js';

// Fetches the parts of a snapshot a policy reads beyond the pods (see snapshotNeeds), and
// nothing else: for the common policy this makes no request at all.

export interface Fetched {
  snapshot: Omit<Snapshot, 'pods'>;
  /** Requests sent to the API server for it (every LIST page, retries after throttling included): its own tally. */
  requests: number;
}

export function fetchContext(h: Pick<CleanupHandle, 'reader' | 'settings'>, needs: SnapshotNeeds): Promise<Fetched> {
  return tallied(async (tally) => ({ snapshot: await read(h, needs), requests: tally.sent }));
}

async function read(h: Pick<CleanupHandle, 'reader' | 'settings'>, needs: SnapshotNeeds): Promise<Fetched['snapshot']> {
  const { core, policy, scheduling } = h.reader;
  const snapshot: Fetched['snapshot'] = {};
  const jobs: Promise<void>[] = [];
  const run = (what: string, job: () => Promise<void>) =>
    jobs.push(
      job().catch((e) => {
        throw toKubeError(e, `list ${what}`);
      }),
    );
  if (needs.nodes) run('nodes', async () => void (snapshot.nodes = (await core.listNode()).items as never));
  if (needs.namespaces) run('namespaces', async () => void (snapshot.namespaces = (await core.listNamespace()).items as never));
  if (needs.pdbs) {
    run('poddisruptionbudgets', async () => {
      snapshot.pdbs = (await policy.listPodDisruptionBudgetForAllNamespaces()).items as never;
    });
  }
  if (needs.priorityClasses) {
    run('priorityclasses', async () => {
      snapshot.priorityClasses = (await scheduling.listPriorityClass()).items as never;
    });
  }
  if (needs.pvcs) {
    run('persistentvolumeclaims', async () => {
      const pvcs = await core.listPersistentVolumeClaimForAllNamespaces();
      snapshot.pvcStorageClasses = new Map(pvcs.items.map((c) => [`${c.metadata?.namespace}/${c.metadata?.name}`, c.spec?.storageClassName ?? '']));
    });
  }
  if (needs.allPods) {
    run('pods', async () => {
      const pods: Pod[] = [];
      for await (const page of listPods(core, { limit: h.settings.pageSize })) pods.push(...(page.items as Pod[]));
      snapshot.contextPods = pods;
    });
  }
  await Promise.all(jobs);
  return snapshot;
}

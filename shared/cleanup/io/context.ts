import type { Pod } from '../../model/objects.js';
import { toKubeError } from '../../kube/errors.js';
import { listPods } from '../../kube/list.js';
import type { SnapshotNeeds } from '../../plan/needs.js';
import type { Snapshot } from '../../plan/snapshot.js';
import type { CleanupHandle } from '../handle.js';

// Fetches the parts of a snapshot a policy reads beyond the pods (see snapshotNeeds), and
// nothing else: for the common policy this makes no request at all.

export interface Fetched {
  snapshot: Omit<Snapshot, 'pods'>;
  requests: number;
}

export async function fetchContext(h: Pick<CleanupHandle, 'reader' | 'settings'>, needs: SnapshotNeeds): Promise<Fetched> {
  const { core, policy, scheduling } = h.reader;
  const out: Fetched = { snapshot: {}, requests: 0 };
  const jobs: Promise<void>[] = [];
  const run = (what: string, job: () => Promise<void>) =>
    jobs.push(
      job().catch((e) => {
        throw toKubeError(e, `list ${what}`);
      }),
    );
  if (needs.nodes) run('nodes', async () => void ((out.snapshot.nodes = (await core.listNode()).items as never), out.requests++));
  if (needs.namespaces) run('namespaces', async () => void ((out.snapshot.namespaces = (await core.listNamespace()).items as never), out.requests++));
  if (needs.pdbs) {
    run('poddisruptionbudgets', async () => {
      out.snapshot.pdbs = (await policy.listPodDisruptionBudgetForAllNamespaces()).items as never;
      out.requests++;
    });
  }
  if (needs.priorityClasses) {
    run('priorityclasses', async () => {
      out.snapshot.priorityClasses = (await scheduling.listPriorityClass()).items as never;
      out.requests++;
    });
  }
  if (needs.pvcs) {
    run('persistentvolumeclaims', async () => {
      const pvcs = await core.listPersistentVolumeClaimForAllNamespaces();
      out.requests++;
      out.snapshot.pvcStorageClasses = new Map(pvcs.items.map((c) => [`${c.metadata?.namespace}/${c.metadata?.name}`, c.spec?.storageClassName ?? '']));
    });
  }
  if (needs.allPods) {
    run('pods', async () => {
      const pods: Pod[] = [];
      let requests = 0;
      for await (const page of listPods(core, { limit: h.settings.pageSize })) {
        pods.push(...(page.items as Pod[]));
        requests = page.requests;
      }
      out.snapshot.contextPods = pods;
      out.requests += requests;
    });
  }
  await Promise.all(jobs);
  return out;
}

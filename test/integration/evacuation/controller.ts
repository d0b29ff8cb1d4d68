// A small stand-in for virt-controller's migration handling, in the test process: a watch on
// VirtualMachineInstanceMigrations moves each new one through KubeVirt's phases (status
// subresource) as the VMI's label says, and on success deletes the source launcher pod as
// KubeVirt does once the VM runs on the target.
//   test.kube-tidy.dev/migration: succeed (default) | fail | hang | fail-<n> (fail n times, then succeed)
//   | hold (stay Pending until the label changes, then follow it)
// A deleted migration clears the VMI's evacuation mark (status.evacuationNodeName), unless the
// VMI is labelled test.kube-tidy.dev/evacuation-mark: kept, which is what KubeVirt really does
// (kubevirt#9585: the mark outlives an aborted migration).
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, Watch, type KubeConfig } from '@kubernetes/client-node';

export const BEHAVIOUR = 'test.kube-tidy.dev/migration';
export const MARK_KEPT = 'test.kube-tidy.dev/evacuation-mark';
const KV = { group: 'kubevirt.io', version: 'v1' } as const;
const SUCCESS = ['Pending', 'Scheduling', 'Scheduled', 'PreparingTarget', 'TargetReady', 'Running', 'Succeeded'];
const FAILURE = ['Pending', 'Scheduling', 'Scheduled', 'PreparingTarget', 'Failed'];
const HANG = ['Pending', 'Scheduling', 'Scheduled', 'PreparingTarget', 'TargetReady', 'Running'];

type Obj = { metadata: { name: string; uid: string; labels?: Record<string, string> }; spec: { vmiName: string }; status?: { phase?: string } };

export interface MigrationController {
  /** Every migration ever created in the namespace, by VMI: the "exactly one" assertions. */
  created: Map<string, string[]>;
  stop(): Promise<void>;
}

export async function startMigrationController(kc: KubeConfig, ns: string): Promise<MigrationController> {
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const created = new Map<string, string[]>();
  const failures = new Map<string, number>();
  let chain = Promise.resolve();

  const vmiStatus = (vmi: string, status: Record<string, unknown>) =>
    custom.patchNamespacedCustomObjectStatus({ ...KV, plural: 'virtualmachineinstances', namespace: ns, name: vmi, body: { status } }, merge).catch(() => {});

  async function run(m: Obj): Promise<void> {
    const getVmi = async () =>
      (await custom.getNamespacedCustomObject({ ...KV, plural: 'virtualmachineinstances', namespace: ns, name: m.spec.vmiName })) as Obj;
    let vmi = await getVmi();
    if (vmi.metadata.labels?.[BEHAVIOUR] === 'hold') {
      await custom.patchNamespacedCustomObjectStatus(
        { ...KV, plural: 'virtualmachineinstancemigrations', namespace: ns, name: m.metadata.name, body: { status: { phase: 'Pending' } } },
        merge,
      );
      const deadline = Date.now() + 90_000;
      while (vmi.metadata.labels?.[BEHAVIOUR] === 'hold' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200)); // polling a label: no push signal in the test
        vmi = await getVmi();
      }
    }
    const behaviour = vmi.metadata.labels?.[BEHAVIOUR] ?? 'succeed';
    const failed = failures.get(m.spec.vmiName) ?? 0;
    const failN = /^fail-(\d+)$/.exec(behaviour);
    const phases = behaviour === 'hang' ? HANG : behaviour === 'fail' || (failN && failed < Number(failN[1])) ? FAILURE : SUCCESS;
    for (const phase of phases) {
      const migrationState = phase === 'Succeeded' ? { completed: true } : phase === 'Failed' ? { completed: true, failed: true } : {};
      try {
        await custom.patchNamespacedCustomObjectStatus(
          { ...KV, plural: 'virtualmachineinstancemigrations', namespace: ns, name: m.metadata.name, body: { status: { phase, migrationState } } },
          merge,
        );
      } catch {
        return; // deleted meanwhile: aborted
      }
    }
    const end = phases[phases.length - 1];
    if (end === 'Failed') failures.set(m.spec.vmiName, failed + 1);
    if (end === 'Failed' || end === 'Succeeded') await vmiStatus(m.spec.vmiName, { evacuationNodeName: null });
    if (end === 'Succeeded') {
      const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: `kubevirt.io/created-by=${vmi.metadata.uid}` });
      for (const p of pods.items)
        await core.deleteNamespacedPod({ namespace: ns, name: p.metadata!.name!, body: { preconditions: { uid: p.metadata!.uid! } } }).catch(() => {});
    }
  }

  let stopped = false;
  let abort: AbortController | undefined;
  const watch = async (): Promise<void> => {
    abort = await new Watch(kc).watch(
      `/apis/kubevirt.io/v1/namespaces/${ns}/virtualmachineinstancemigrations`,
      {},
      (type: string, m: Obj) => {
        if (type === 'DELETED') {
          chain = chain.then(async () => {
            const vmi = (await custom
              .getNamespacedCustomObject({ ...KV, plural: 'virtualmachineinstances', namespace: ns, name: m.spec.vmiName })
              .catch(() => undefined)) as Obj | undefined;
            if (vmi?.metadata.labels?.[MARK_KEPT] !== 'kept') await vmiStatus(m.spec.vmiName, { evacuationNodeName: null });
          });
          return;
        }
        if (type !== 'ADDED' || m.status?.phase) return;
        const list = created.get(m.spec.vmiName) ?? [];
        if (list.includes(m.metadata.name)) return;
        created.set(m.spec.vmiName, [...list, m.metadata.name]);
        chain = chain.then(() => run(m)).catch(() => {});
      },
      () => {
        if (!stopped) setTimeout(() => void watch().catch(() => {}), 200); // re-watch: ADDED again for all, deduplicated above
      },
    );
  };
  await watch();
  return {
    created,
    stop: async () => {
      stopped = true;
      abort?.abort();
      await chain;
    },
  };
}

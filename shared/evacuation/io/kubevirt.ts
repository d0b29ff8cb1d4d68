// Every KubeVirt call evacuation makes, in one place: VirtualMachineInstanceMigrations and
// VMIs (kubevirt.io/v1). Reads through the runtime's CustomObjectsApi (shared/kube's clients:
// one timeout, kept-alive connections); writes through the ClusterWriter, so DRY_RUN and
// protected namespaces hold for migrations as for pods.
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { readOrAbsent } from '../../kube/read.js';
import type { RemovalTicket } from '../../kube/admission.js';
import type { ClusterWriter, Gvr } from '../../kube/writer.js';

export const MIGRATIONS: Gvr = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstancemigrations' };
const VMIS: Gvr = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' };

export type KubeVirtReader = Pick<CustomObjectsApi, 'getNamespacedCustomObject' | 'listNamespacedCustomObject'>;

export interface Migration {
  metadata: { name: string; namespace: string; uid?: string; creationTimestamp?: string; labels?: Record<string, string> };
  spec: { vmiName: string };
  status?: { phase?: string };
}

export async function getMigration(api: KubeVirtReader, namespace: string, name: string): Promise<Migration | undefined> {
  return readOrAbsent(`get migration ${namespace}/${name}`, async () => (await api.getNamespacedCustomObject({ ...MIGRATIONS, namespace, name })) as Migration);
}

/**
 * The migration of a VMI created at or after `since` (ms), newest first: what KubeVirt's
 * evacuation made after our eviction. Older ones belong to earlier attempts.
 */
export async function findMigration(api: KubeVirtReader, namespace: string, vmi: string, since: number): Promise<Migration | undefined> {
  // 404: the CRDs are not installed: no KubeVirt here, so no migration.
  const list = await readOrAbsent(
    `list migrations in ${namespace}`,
    async () => (await api.listNamespacedCustomObject({ ...MIGRATIONS, namespace })) as { items?: Migration[] },
  );
  // creationTimestamp has whole seconds.
  const floor = Math.floor(since / 1000) * 1000;
  return (list?.items ?? [])
    .filter((m) => m.spec?.vmiName === vmi && Date.parse(m.metadata.creationTimestamp ?? '') >= floor)
    .sort((a, b) => Date.parse(b.metadata.creationTimestamp!) - Date.parse(a.metadata.creationTimestamp!))[0];
}

/** Creates the migration; 409 AlreadyExists is success: another instance (or our crashed self) made it. */
export function createMigration(
  writer: ClusterWriter,
  namespace: string,
  name: string,
  vmi: string,
  labels: Record<string, string>,
  ticket: RemovalTicket,
): Promise<'created' | 'exists'> {
  const metadata = { name, namespace, labels };
  const body = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstanceMigration', metadata, spec: { vmiName: vmi } };
  return writer.startEvacuation(MIGRATIONS, namespace, body, ticket);
}

/** Deleting a migration is how KubeVirt aborts it: our own, taken back. Already gone is fine. */
export async function deleteMigration(writer: ClusterWriter, namespace: string, name: string): Promise<boolean> {
  return (await writer.deleteOwnObject(MIGRATIONS, { namespace, name })) === 'deleted';
}

/**
 * The node KubeVirt still marks a VMI to be evacuated from (status.evacuationNodeName), if
 * any. While it is set, KubeVirt's evacuation controller keeps creating migrations, even after
 * one was deleted (kubevirt#9585); only its evacuate/cancel subresource (KubeVirt 1.7+) clears it.
 */
export async function evacuationMark(api: KubeVirtReader, namespace: string, vmi: string): Promise<string | undefined> {
  const obj = (await readOrAbsent(`get VMI ${namespace}/${vmi}`, () => api.getNamespacedCustomObject({ ...VMIS, namespace, name: vmi }))) as
    { status?: { evacuationNodeName?: string } } | undefined;
  return obj?.status?.evacuationNodeName || undefined;
}

// VirtualMachineInstanceMigrations (kubevirt.io/v1) through CustomObjectsApi, with the same
// per-request timeout and kept-alive connections as shared/kube's clients.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { clientConfiguration } from '../kube/clients.js';
import { classifyKubeError, toKubeError } from '../kube/index.js';

const GVR = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstancemigrations' } as const;

export interface Migration {
  metadata: { name: string; namespace: string; uid?: string; creationTimestamp?: string; labels?: Record<string, string> };
  spec: { vmiName: string };
  status?: { phase?: string };
}

export function customClient(kc: KubeConfig, timeoutMs: number, onRequest?: (method: string, url: string) => void): CustomObjectsApi {
  return new CustomObjectsApi(clientConfiguration(kc, { timeoutMs, onRequest }).configuration);
}

export async function getMigration(api: CustomObjectsApi, namespace: string, name: string): Promise<Migration | undefined> {
  try {
    return (await api.getNamespacedCustomObject({ ...GVR, namespace, name })) as Migration;
  } catch (e) {
    if (classifyKubeError(e).kind === 'not-found') return undefined;
    throw toKubeError(e, `get migration ${namespace}/${name}`);
  }
}

/**
 * The migration of a VMI created at or after `since` (ms), newest first: what KubeVirt's
 * evacuation made after our eviction. Older ones belong to earlier attempts.
 */
export async function findMigration(api: CustomObjectsApi, namespace: string, vmi: string, since: number): Promise<Migration | undefined> {
  let list: { items?: Migration[] };
  try {
    list = (await api.listNamespacedCustomObject({ ...GVR, namespace })) as { items?: Migration[] };
  } catch (e) {
    // The CRDs are not installed: no KubeVirt here, so no migration.
    if (classifyKubeError(e).kind === 'not-found') return undefined;
    throw toKubeError(e, `list migrations in ${namespace}`);
  }
  // creationTimestamp has whole seconds.
  const floor = Math.floor(since / 1000) * 1000;
  return (list.items ?? [])
    .filter((m) => m.spec?.vmiName === vmi && Date.parse(m.metadata.creationTimestamp ?? '') >= floor)
    .sort((a, b) => Date.parse(b.metadata.creationTimestamp!) - Date.parse(a.metadata.creationTimestamp!))[0];
}

/** Creates the migration; 409 AlreadyExists is success: another instance (or our crashed self) made it. */
export async function createMigration(api: CustomObjectsApi, namespace: string, name: string, vmi: string, labels: Record<string, string>): Promise<'created' | 'exists'> {
  try {
    await api.createNamespacedCustomObject({ ...GVR, namespace, body: { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstanceMigration', metadata: { name, namespace, labels }, spec: { vmiName: vmi } } });
    return 'created';
  } catch (e) {
    if (classifyKubeError(e).kind === 'conflict') return 'exists';
    throw toKubeError(e, `create migration ${namespace}/${name}`);
  }
}

/** Deleting a migration is how KubeVirt aborts it. Already gone is fine. */
export async function deleteMigration(api: CustomObjectsApi, namespace: string, name: string): Promise<boolean> {
  try {
    await api.deleteNamespacedCustomObject({ ...GVR, namespace, name });
    return true;
  } catch (e) {
    if (classifyKubeError(e).kind === 'not-found') return false;
    throw toKubeError(e, `delete migration ${namespace}/${name}`);
  }
}

/**
 * The node KubeVirt still marks a VMI to be evacuated from (status.evacuationNodeName), if
 * any. While it is set, KubeVirt's evacuation controller keeps creating migrations, even after
 * one was deleted (kubevirt#9585); only its evacuate/cancel subresource (KubeVirt 1.7+) clears it.
 */
export async function evacuationMark(api: CustomObjectsApi, namespace: string, vmi: string): Promise<string | undefined> {
  try {
    const obj = (await api.getNamespacedCustomObject({ group: GVR.group, version: GVR.version, plural: 'virtualmachineinstances', namespace, name: vmi })) as { status?: { evacuationNodeName?: string } };
    return obj.status?.evacuationNodeName || undefined;
  } catch (e) {
    if (classifyKubeError(e).kind === 'not-found') return undefined;
    throw toKubeError(e, `get VMI ${namespace}/${vmi}`);
  }
}

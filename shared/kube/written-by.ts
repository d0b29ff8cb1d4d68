// Who last wrote a key of a ConfigMap, as the API server records it (metadata.managedFields).
// kube-tidy writes its state under one field manager, `kube-tidy`: without one the API server
// names the writer after the client's user agent, which for @kubernetes/client-node is
// `node-fetch`, what any script with the same client is named too (and what every release
// before the field manager was sent is named). Ownership of a field moves to whoever last
// changed its value (an update, an apply with force, a `kubectl edit`), so a key kube-tidy's
// manager no longer owns was changed by someone else since kube-tidy wrote it. The field
// manager is a name a client gives, not an identity: RBAC on the ConfigMap is what stops a
// hostile writer; this tells kube-tidy's writes from another tool's or a person's.
import type { V1ConfigMap, V1ManagedFieldsEntry } from '@kubernetes/client-node';

/** The field manager of every ConfigMap write kube-tidy sends (its state) and of its applied Reports. */
export const FIELD_MANAGER = 'kube-tidy';

/** A writer as managedFields names it. */
export interface Writer {
  manager: string;
  /** `Update` (a create, a PUT, a patch) or `Apply` (server-side apply). */
  operation?: string;
  /** When that manager last changed a field it owns (RFC 3339, seconds). */
  time?: string;
}

const timeOf = (e: V1ManagedFieldsEntry): string | undefined => {
  const t: unknown = e.time;
  if (t instanceof Date) return Number.isNaN(t.getTime()) ? undefined : t.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return typeof t === 'string' ? t : undefined;
};

const owns = (e: V1ManagedFieldsEntry, key: string): boolean => {
  const data = (e.fieldsV1 as Record<string, unknown> | undefined)?.['f:data'];
  return typeof data === 'object' && data !== null && `f:${key}` in data;
};

const newest = (entries: readonly V1ManagedFieldsEntry[]): V1ManagedFieldsEntry | undefined =>
  [...entries].sort((a, b) => (timeOf(b) ?? '').localeCompare(timeOf(a) ?? ''))[0];

/**
 * The writer of `key` when it is not kube-tidy's field manager: undefined when kube-tidy owns
 * it. Nobody owning the key while others own fields (a reset, then another change): the newest
 * of them is named. No managedFields at all is foreign too: the API server records every write,
 * so only a client that stripped them (a write with `managedFields: [{}]`, which may change the
 * data in the same request) leaves none, never kube-tidy's own write.
 */
export function foreignWriter(cm: V1ConfigMap | undefined, key: string): Writer | undefined {
  if (!cm) return undefined;
  const entries = cm.metadata?.managedFields ?? [];
  if (entries.length === 0) return { manager: '(unknown: managedFields stripped)' };
  const owners = entries.filter((e) => owns(e, key));
  if (owners.some((e) => e.manager === FIELD_MANAGER)) return undefined;
  const by = newest(owners.length ? owners : entries)!;
  const time = timeOf(by);
  return { manager: by.manager ?? '(no manager)', ...(by.operation ? { operation: by.operation } : {}), ...(time ? { time } : {}) };
}

/** "node-fetch (Update at 2026-11-29T06:01:02Z)", for a reason and an Event. */
export const describeWriter = (w: Writer): string => {
  const how = [w.operation, w.time ? `at ${w.time}` : undefined].filter(Boolean).join(' ');
  return how ? `${w.manager} (${how})` : w.manager;
};

/**
 * The managedFields to send with an update of `seen` so the keys of `data` are kube-tidy's
 * again, or nothing when the API server will record the update itself. Once an object's
 * managedFields are gone (stripped, or never recorded), the API server records no manager on
 * later updates (measured on v1.37: a PUT under `fieldManager` leaves none), so a ledger once
 * stripped would read as foreign on every read, rebuilt blind forever. Managed fields sent in
 * the update are the ones the API server starts from (as `kubectl` documents for resetting
 * them), so naming kube-tidy's keys there makes its write kube-tidy's.
 */
export function ownedAgain(seen: V1ConfigMap, data: Record<string, string>): { managedFields?: V1ManagedFieldsEntry[] } {
  if ((seen.metadata?.managedFields ?? []).length > 0) return {};
  const fields = Object.fromEntries(Object.keys(data).map((k) => [`f:${k}`, {}]));
  return { managedFields: [{ manager: FIELD_MANAGER, operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': fields } }] };
}

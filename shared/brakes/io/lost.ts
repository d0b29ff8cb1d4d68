// When the ledger as read cannot be trusted, and how that is said. Unreadable: it fails its
// schema (a truncated document, a botched `kubectl edit`). Deleted or replaced: this process
// read it before, under another uid, and what it holds now is not a blind rebuild made since.
// A process that never read it cannot tell a deleted ledger from one never written: that is
// the first use, as for a new install (docs/safety.md "What kube-tidy keeps in the cluster").
import type { Seen } from '../../kube/configmap-store.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Logger } from '../../log.js';
import { observeStateUnreadable } from '../../metrics/observe.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import type { LedgerState } from '../core/ledger.js';

export interface Lost {
  found: 'unreadable' | 'deleted' | 'replaced';
  why: string;
  excerpt?: string;
}

/** A rebuild's own instant may trail the API server's creationTimestamp by the clocks' skew. */
const SKEW_MS = 60_000;

export function lostWhy(seen: Seen<LedgerState>, known: string | undefined): Lost | undefined {
  const bad = seen.unreadable[0];
  if (bad) return { found: 'unreadable', why: `unreadable (${bad.key}: ${bad.why})`, excerpt: bad.excerpt };
  if (known === undefined) return undefined;
  if (!seen.cm) return { found: 'deleted', why: 'deleted' };
  if (seen.cm.metadata?.uid === known) return undefined;
  const created = Date.parse(String(seen.cm.metadata?.creationTimestamp ?? ''));
  const blindSince = seen.value.blind?.at;
  if (blindSince !== undefined && (Number.isNaN(created) || blindSince + SKEW_MS >= created)) return undefined;
  return { found: 'replaced', why: 'replaced (another object under its name)' };
}

/** Said once, by the instance whose write rebuilt it: an error line, a Warning Event in its namespace, a counter (in `metrics`, the host's). */
export async function rebuildSaid(
  metrics: MetricsRecorder,
  writer: ClusterWriter,
  log: Logger | undefined,
  o: { namespace: string; name: string; found: Lost['found']; why: string; at: number },
): Promise<void> {
  observeStateUnreadable(metrics, 'brakes-ledger', o.found);
  const note = `kube-tidy: the brakes' ledger ${o.namespace}/${o.name} was ${o.why}; rebuilt at ${new Date(o.at).toISOString()}: removals under a limit wait for the windows under way to end, and under abort rules for a person's resume (invoke's override)`;
  log?.error({ ledger: `${o.namespace}/${o.name}`, found: o.found }, note);
  await writer
    .recordNamespaceEvent(o.namespace, { reason: 'LedgerRebuilt', action: 'Rebuild', type: 'Warning', note, once: `ledger-rebuilt-${o.at}` })
    .catch(() => undefined);
}

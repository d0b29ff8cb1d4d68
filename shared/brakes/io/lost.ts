// When the ledger as read cannot be trusted, and how that is said. Unreadable: it fails its
// schema (a truncated document, a botched `kubectl edit`). Deleted or replaced: this process
// read it before, under another uid, and what it holds now is not a blind rebuild made since.
// Foreign: it reads as a ledger, but its value was last written by another field manager than
// kube-tidy's (../../kube/written-by.ts): a PUT of a valid, empty ledger mid-storm would
// otherwise hand every budget out again. Any process sees that, fresh or not.
// A process that never read it cannot tell a deleted ledger from one never written: that is
// the first use, as for a new install (docs/safety.md "What kube-tidy keeps in the cluster").
import type { Seen } from '../../kube/configmap-store.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { describeWriter, foreignWriter, type Writer } from '../../kube/written-by.js';
import type { Logger } from '../../log.js';
import { observeStateUnreadable } from '../../metrics/observe.js';
import type { MetricsRecorder } from '../../metrics/recorder.js';
import type { LedgerState } from '../core/ledger.js';
import { LEDGER_KEY } from './store.js';

export interface Lost {
  found: 'unreadable' | 'deleted' | 'replaced' | 'foreign';
  why: string;
  excerpt?: string;
  /** Who wrote it last (foreign): said in the Event and the log line. */
  by?: Writer;
}

/** The start of a foreign value, kept for the person who looks (as an unreadable one's is). */
const EXCERPT = 200;

/** A rebuild's own instant may trail the API server's creationTimestamp by the clocks' skew. */
const SKEW_MS = 60_000;

export function lostWhy(seen: Seen<LedgerState>, known: string | undefined): Lost | undefined {
  const bad = seen.unreadable[0];
  if (bad) return { found: 'unreadable', why: `unreadable (${bad.key}: ${bad.why})`, excerpt: bad.excerpt };
  if (known !== undefined && !seen.cm) return { found: 'deleted', why: 'deleted' };
  if (known !== undefined && seen.cm && seen.cm.metadata?.uid !== known) {
    const created = Date.parse(String(seen.cm.metadata?.creationTimestamp ?? ''));
    const blindSince = seen.value.blind?.at;
    if (blindSince === undefined || (!Number.isNaN(created) && blindSince + SKEW_MS < created))
      return { found: 'replaced', why: 'replaced (another object under its name)' };
  }
  const by = foreignWriter(seen.cm, LEDGER_KEY);
  if (!by) return undefined;
  const excerpt = seen.cm?.data?.[LEDGER_KEY]?.slice(0, EXCERPT);
  return { found: 'foreign', why: `rewritten by ${describeWriter(by)}, not by kube-tidy`, by, ...(excerpt ? { excerpt } : {}) };
}

/** Said once, by the instance whose write rebuilt it: an error line, a Warning Event in its namespace, a counter (in `metrics`, the host's). */
export async function rebuildSaid(
  metrics: MetricsRecorder,
  writer: ClusterWriter,
  log: Logger | undefined,
  at: { namespace: string; name: string; at: number },
  lost: Lost,
): Promise<void> {
  const o = { ...at, found: lost.found, why: lost.why, by: lost.by };
  observeStateUnreadable(metrics, 'brakes-ledger', o.found);
  const note = `kube-tidy: the brakes' ledger ${o.namespace}/${o.name} was ${o.why}; rebuilt at ${new Date(o.at).toISOString()}: removals under a limit wait for the windows under way to end, and under abort rules for a person's resume (invoke's override)`;
  log?.error({ ledger: `${o.namespace}/${o.name}`, found: o.found, ...(o.by ? { writtenBy: o.by } : {}) }, note);
  await writer
    .recordNamespaceEvent(o.namespace, { reason: 'LedgerRebuilt', action: 'Rebuild', type: 'Warning', note, once: `ledger-rebuilt-${o.at}` })
    .catch(() => undefined);
}

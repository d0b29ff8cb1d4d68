// Putting a pass's reports in the cluster so that what is stored is exactly what this pass
// found: each report applied whole (kube/reports.ts), then, per profile, every report of that
// profile (found by its labels) in a namespace this pass wrote none for is deleted, within the
// pass's scope (the namespaces it was asked about, or all). A report whose write failed is
// not deleted: the previous one stays until a pass can replace it. Every failure is a
// result: counted as transient or refused, with a few messages, never an exception.
// Pod cleanup's reports are keyed by profile; cleanup beyond pods' by rule (objects/reports):
// each family says how its reports are keyed and found (ReportKeys), so neither replaces the other's.
import { KubeError, TransientKubeError } from '../../../kube/errors.js';
import { inOrder } from '../../../pool/in-order.js';
import type { ReportWriter } from '../../../kube/reports.js';
import { ANNOTATIONS, reportSelector } from '../core/names.js';
import type { Report } from '../core/report.js';

/** Reports written at once (each one request; the clients' rate limit still applies). */
const CONCURRENCY = 8;
const ERRORS_KEPT = 5;

export interface ReportsWritten {
  written: number;
  deleted: number;
  failures: { transient: number; refused: number };
  /** The first few failures' messages. */
  errors?: string[];
}

export interface ReplaceScope {
  /** Every profile of the policy the pass ran (every rule, for objects): its reports elsewhere are stale. */
  profiles: readonly string[];
  /** The namespaces the pass was limited to; absent: every namespace. */
  namespaces?: readonly string[];
}

/** How a family's reports are keyed: the key a report is replaced under, and the label selector that lists a key's reports. */
export interface ReportKeys {
  keyOf(report: Report): string;
  selectorOf(key: string): string;
}

/** Pod cleanup's: one report per profile, its exact name in an annotation. */
export const PROFILE_KEYS: ReportKeys = { keyOf: (r) => r.metadata.annotations[ANNOTATIONS.policy]!, selectorOf: reportSelector };

export async function replaceReports(
  writer: ReportWriter,
  reports: readonly Report[],
  scope: ReplaceScope,
  keys: ReportKeys = PROFILE_KEYS,
): Promise<ReportsWritten> {
  const out: ReportsWritten = { written: 0, deleted: 0, failures: { transient: 0, refused: 0 } };
  const fail = (e: unknown) => {
    if (!(e instanceof KubeError)) throw e;
    if (e instanceof TransientKubeError) out.failures.transient++;
    else out.failures.refused++;
    if ((out.errors ??= []).length < ERRORS_KEPT) out.errors.push(e.message);
  };
  // What should exist afterwards, per profile: every namespace given a report, written or not.
  const wanted = new Map<string, Set<string>>();
  for (const r of reports) {
    const profile = keys.keyOf(r);
    if (!wanted.has(profile)) wanted.set(profile, new Set());
    wanted.get(profile)!.add(r.metadata.namespace);
  }
  await inOrder(
    reports,
    CONCURRENCY,
    () => false,
    async (r) => {
      try {
        await writer.apply(r);
        out.written++;
      } catch (e) {
        fail(e);
      }
    },
  );
  for (const profile of scope.profiles) {
    let listed;
    try {
      listed = await writer.list(keys.selectorOf(profile), scope.namespaces);
    } catch (e) {
      fail(e);
      continue;
    }
    const keep = wanted.get(profile) ?? new Set<string>();
    const stale = listed.filter((id) => id.namespace && !keep.has(id.namespace) && writer.writable(id.namespace));
    await inOrder(
      stale,
      CONCURRENCY,
      () => false,
      async (id) => {
        try {
          if ((await writer.remove(id)) === 'deleted') out.deleted++;
        } catch (e) {
          fail(e);
        }
      },
    );
  }
  return out;
}

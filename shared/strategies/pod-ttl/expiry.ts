import type { Pod } from '../../model/objects.js';
import { toMillis } from '../../model/time.js';
import { parseJanitorExpires, parseJanitorTtl, parseKyvernoTtl, type Parsed } from './parse.js';
import type { TtlSource } from './schema.js';

/** Kyverno's label (a label, not an annotation). */
export const KYVERNO_TTL_LABEL = 'cleanup.kyverno.io/ttl';
export const JANITOR_TTL_ANNOTATION = 'janitor/ttl';
export const JANITOR_EXPIRES_ANNOTATION = 'janitor/expires';

/**
 * What a pod's TTL values say, read from the sources a policy opts into:
 * - `none`: no value (or only `janitor/ttl: forever`);
 * - `at`: the earliest instant any of them names, and which one named it;
 * - `malformed`: some value cannot be read. The pod is then kept whatever the others say:
 *   someone meant to bound its life and kube-tidy cannot tell to what.
 */
export type Expiry = { kind: 'none' } | { kind: 'at'; at: number; source: string } | { kind: 'malformed'; reason: string };

const NONE: Expiry = { kind: 'none' };

/** Reads the pod's TTL values; never throws, whatever the values hold. */
export function expiryOf(pod: Pod, sources: ReadonlySet<TtlSource>): Expiry {
  const labels = pod.metadata.labels;
  const annotations = pod.metadata.annotations;
  const kyverno = sources.has('kyverno') ? own(labels, KYVERNO_TTL_LABEL) : undefined;
  const janitor = sources.has('janitor');
  const ttl = janitor ? own(annotations, JANITOR_TTL_ANNOTATION) : undefined;
  const expires = janitor ? own(annotations, JANITOR_EXPIRES_ANNOTATION) : undefined;
  // The common case, most pods: none of the keys, two or three lookups.
  if (kyverno === undefined && ttl === undefined && expires === undefined) return NONE;

  const created = toMillis(pod.metadata.creationTimestamp);
  const read: { key: string; value: string; parsed: Parsed }[] = [];
  if (kyverno !== undefined) read.push({ key: `label ${KYVERNO_TTL_LABEL}`, value: kyverno, parsed: parseKyvernoTtl(kyverno, created) });
  if (ttl !== undefined) {
    const parsed = parseJanitorTtl(ttl, created);
    if (parsed !== 'forever') read.push({ key: `annotation ${JANITOR_TTL_ANNOTATION}`, value: ttl, parsed });
  }
  if (expires !== undefined) read.push({ key: `annotation ${JANITOR_EXPIRES_ANNOTATION}`, value: expires, parsed: parseJanitorExpires(expires) });

  const wrong = read.flatMap((r) => (r.parsed.ok ? [] : [`${r.key}: ${r.parsed.why}`]));
  if (wrong.length) return { kind: 'malformed', reason: wrong.join('; ') };
  let best: Expiry = NONE;
  for (const r of read) {
    if (r.parsed.ok && (best.kind !== 'at' || r.parsed.at < best.at)) best = { kind: 'at', at: r.parsed.at, source: `${r.key} (${r.parsed.how})` };
  }
  return best;
}

/** A value only when the object really holds that key (never one inherited from Object.prototype). */
function own(map: Record<string, string> | undefined, key: string): string | undefined {
  if (map === undefined || !Object.hasOwn(map, key)) return undefined;
  const v = map[key];
  return typeof v === 'string' ? v : undefined;
}

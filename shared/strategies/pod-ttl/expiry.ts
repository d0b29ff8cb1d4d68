import type { Pod } from '../../model/objects.js';
import { toMillis } from '../../model/time.js';
import { parseJanitorExpires, parseJanitorTtl, parseKyvernoTtl, type Parsed } from './parse.js';
import type { TtlSource } from './schema.js';

/** What an expiry is read from: any object's labels, annotations and creation time. */
export type TtlMeta = Pick<Pod['metadata'], 'labels' | 'annotations' | 'creationTimestamp'>;

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
  const janitor = sources.has('janitor');
  return expiryOfMeta(pod.metadata, { kyverno: sources.has('kyverno'), janitorTtl: janitor, janitorExpires: janitor, janitorLabels: false });
}

/** Which TTL values to read: each convention's, and whether kube-janitor's keys count as labels too (TTL on any kind). */
export interface TtlReads {
  kyverno: boolean;
  janitorTtl: boolean;
  janitorExpires: boolean;
  /** kube-janitor reads annotations; a label of the same key is read too where a rule says so (an annotation wins). */
  janitorLabels: boolean;
}

/** What any object's metadata says of its expiry (the pod's, a Namespace's, a Deployment's); never throws. */
export function expiryOfMeta(meta: TtlMeta, reads: TtlReads): Expiry {
  const { labels, annotations } = meta;
  const janitorValue = (key: string) => own(annotations, key) ?? (reads.janitorLabels ? own(labels, key) : undefined);
  const kyverno = reads.kyverno ? own(labels, KYVERNO_TTL_LABEL) : undefined;
  const ttl = reads.janitorTtl ? janitorValue(JANITOR_TTL_ANNOTATION) : undefined;
  const expires = reads.janitorExpires ? janitorValue(JANITOR_EXPIRES_ANNOTATION) : undefined;
  // The common case, most objects: none of the keys, two or three lookups.
  if (kyverno === undefined && ttl === undefined && expires === undefined) return NONE;
  const created = toMillis(meta.creationTimestamp);
  const where = (key: string) => (own(annotations, key) !== undefined ? 'annotation' : 'label');
  const read: { key: string; value: string; parsed: Parsed }[] = [];
  if (kyverno !== undefined) read.push({ key: `label ${KYVERNO_TTL_LABEL}`, value: kyverno, parsed: parseKyvernoTtl(kyverno, created) });
  if (ttl !== undefined) {
    const parsed = parseJanitorTtl(ttl, created);
    if (parsed !== 'forever') read.push({ key: `${where(JANITOR_TTL_ANNOTATION)} ${JANITOR_TTL_ANNOTATION}`, value: ttl, parsed });
  }
  if (expires !== undefined)
    read.push({ key: `${where(JANITOR_EXPIRES_ANNOTATION)} ${JANITOR_EXPIRES_ANNOTATION}`, value: expires, parsed: parseJanitorExpires(expires) });
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

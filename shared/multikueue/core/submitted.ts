// Pure: was this manager-side job submitted to Kueue, so that it can have remote copies? The
// watch takes every Job (the object rules need them all), so jobDeleted gets every Job's
// deletion and must tell, from the deleted object alone, which ones MultiKueue may have
// copied. A copy exists only for a job admitted through MultiKueue; Kueue admits only a job
// that names a LocalQueue, by the label (or, from older Kueue, the annotation of the same key;
// its LocalQueue defaulting writes the label too). Presence is enough, as the selector this
// replaces said (`Exists`): an empty value still cascades, which costs reads, never a copy.
import { QUEUE_NAME_LABEL } from './labels.js';

const has = (map: unknown, key: string): boolean => typeof map === 'object' && map !== null && Object.hasOwn(map, key);

/** Why the deleted job cannot have MultiKueue copies (nothing to cascade), or undefined when it may. */
export function notSubmitted(metadata: { readonly [field: string]: unknown }): string | undefined {
  if (has(metadata.labels, QUEUE_NAME_LABEL) || has(metadata.annotations, QUEUE_NAME_LABEL)) return undefined;
  return `no ${QUEUE_NAME_LABEL} label: never submitted to Kueue, so MultiKueue made no copies (no worker read)`;
}

// An object an event names only by reference (Knative Reference mode: no uid, no copy): its
// stored uid, so the event path can restrict its pass to it. Undefined when it is not there.
import type { ObjectKind } from '../../policy/objects-schema.js';
import { RESOURCE_OF, readRaw, type ObjectsReader } from './read.js';

export async function storedUid(r: ObjectsReader, kind: ObjectKind, at: { namespace: string; name: string }): Promise<string | undefined> {
  return (await readRaw<{ metadata?: { uid?: string } }>(r, RESOURCE_OF[kind], at))?.metadata?.uid;
}

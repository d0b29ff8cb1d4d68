// Pure: may kube-tidy delete this remote object on behalf of the manager? Only a copy our
// own manager made (its origin label equals ours). Anything else is someone else's.
import type { RemoteObject } from './remote-object.js';
import { ORIGIN_LABEL } from './labels.js';

export type Verdict =
  { delete: true; uid: string; resourceVersion?: string } | { delete: false; outcome: 'gone' | 'terminating' | 'other-origin' | 'no-origin'; why: string };

export function remoteVerdict(obj: RemoteObject | undefined, origin: string): Verdict {
  if (!obj) return { delete: false, outcome: 'gone', why: 'no such object in this worker' };
  const label = obj.metadata.labels?.[ORIGIN_LABEL];
  if (label === undefined) return { delete: false, outcome: 'no-origin', why: `no ${ORIGIN_LABEL} label: not a MultiKueue copy` };
  if (label !== origin) return { delete: false, outcome: 'other-origin', why: `${ORIGIN_LABEL}=${label}, not ${origin}: another manager's copy` };
  // A Foreground delete in progress, or ours from an earlier delivery: nothing to add.
  if (obj.metadata.deletionTimestamp) return { delete: false, outcome: 'terminating', why: 'already being deleted' };
  return { delete: true, uid: obj.metadata.uid ?? '', resourceVersion: obj.metadata.resourceVersion };
}

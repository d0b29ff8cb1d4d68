// Pure: kube-tidy's witness record in each worker, read and changed. The record is a ConfigMap
// (io/witness.ts reads and writes it) whose data maps a batch Job's uid to
// "<origin> <namespace>/<name>": the Jobs kube-tidy has seen carrying an origin label. After a
// Job is deleted without propagation its pods lose their owner reference and nothing on them
// says "MultiKueue copy" any more; the Job-controller labels only name a uid. The record is
// what turns that uid back into proof. Entries of other origins are kept as they are.

// The record's name is a name kube-tidy owns (model/keys.ts).
export { WITNESS_CONFIGMAP } from '../../model/keys.js';

/** uid -> "namespace/name", for our origin only. */
export function witnessedUids(raw: Readonly<Record<string, string>>, origin: string): Map<string, string> {
  const uids = new Map<string, string>();
  for (const [uid, value] of Object.entries(raw)) {
    const [o, job] = value.split(' ');
    if (o === origin && job) uids.set(uid, job);
  }
  return uids;
}

/** The record's new data after `change`, or undefined when nothing changes (no write needed). */
export function changedWitness(
  raw: Readonly<Record<string, string>>,
  origin: string,
  change: { add: ReadonlyMap<string, string>; drop: readonly string[] },
): Record<string, string> | undefined {
  const mine = (uid: string) => raw[uid]?.startsWith(`${origin} `);
  const drop = change.drop.filter(mine);
  if (change.add.size === 0 && drop.length === 0) return undefined;
  const data = { ...raw };
  for (const uid of drop) delete data[uid];
  for (const [uid, job] of change.add) data[uid] = `${origin} ${job}`;
  return data;
}

import { describe, expect, it } from 'vitest';
import { BATCH_JOB, WORKLOAD, type JobKind } from '../core/kinds.js';
import { JOB_NAME_LABEL, JOB_UID_LABEL, KUEUE_PODSET_LABEL, ORIGIN_LABEL } from '../core/labels.js';
import { keyOf, kindKey, orphans, type ManagerSnapshot, type WorkerSnapshot } from '../core/orphans.js';
import type { RemoteObject } from '../core/remote-object.js';
import { compactRemote, keepCopy, keepJobPod } from './compact.js';

// What a LIST gives besides what the core reads: managedFields, a template, annotations,
// other labels, owners that are not the controller.
const noise = {
  annotations: { 'batch.kubernetes.io/job-tracking': '' },
  managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', fieldsV1: { 'f:status': { 'f:active': {} } } }],
  generation: 3,
  creationTimestamp: '2026-11-20T10:00:00Z',
};
const whole = (o: { name: string; uid: string; labels: Record<string, string>; owners?: object[]; deleting?: boolean; phase?: string }): RemoteObject =>
  ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: o.name,
      namespace: 'ml',
      uid: o.uid,
      resourceVersion: `rv-${o.uid}`,
      labels: { app: 'train', 'kueue.x-k8s.io/queue-name': 'q', ...o.labels },
      ownerReferences: o.owners ?? [],
      ...(o.deleting ? { deletionTimestamp: '2026-11-21T00:00:00Z' } : {}),
      ...noise,
    },
    spec: { template: { spec: { containers: [{ name: 'main', image: 'train:1' }] } } },
    status: { ...(o.phase ? { phase: o.phase } : {}), startTime: '2026-11-20T10:00:00Z', conditions: [{ type: 'Ready', status: 'True' }] },
  }) as RemoteObject;

const controller = (uid: string) => ({ apiVersion: 'batch/v1', kind: 'Job', name: 'train', uid, controller: true, blockOwnerDeletion: true });
const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'cm-uid' };

describe('compactRemote', () => {
  it('keeps the identity, the labels the core reads, the controller reference and the phase, and nothing else', () => {
    const pod = whole({
      name: 'p',
      uid: 'u',
      labels: { [JOB_UID_LABEL]: 'j', [JOB_NAME_LABEL]: 'train', [KUEUE_PODSET_LABEL]: 'main', [ORIGIN_LABEL]: 'mk' },
      owners: [other, controller('j')],
      deleting: true,
      phase: 'Failed',
    });
    expect(compactRemote(pod)).toEqual({
      metadata: {
        name: 'p',
        namespace: 'ml',
        uid: 'u',
        resourceVersion: 'rv-u',
        labels: { [JOB_UID_LABEL]: 'j', [JOB_NAME_LABEL]: 'train', [KUEUE_PODSET_LABEL]: 'main', [ORIGIN_LABEL]: 'mk' },
        deletionTimestamp: '2026-11-21T00:00:00Z',
        ownerReferences: [controller('j')],
      },
      status: { phase: 'Failed' },
    });
    expect(compactRemote(whole({ name: 'j', uid: 'j', labels: {}, owners: [other] }))).toEqual({
      metadata: { name: 'j', namespace: 'ml', uid: 'j', resourceVersion: 'rv-j', labels: {} },
    });
  });

  // The core's plan (decisions and witness changes) on whole objects, against what the sweep keeps.
  const pods = [
    whole({ name: 'owned', uid: 'p1', labels: { [JOB_UID_LABEL]: 'gone', [JOB_NAME_LABEL]: 'train' }, owners: [controller('gone')] }),
    whole({ name: 'other-owner', uid: 'p2', labels: { [JOB_UID_LABEL]: 'gone', [JOB_NAME_LABEL]: 'train' }, owners: [other], phase: 'Running' }),
    whole({ name: 'done', uid: 'p3', labels: { [JOB_UID_LABEL]: 'gone', [JOB_NAME_LABEL]: 'train' }, phase: 'Succeeded' }),
    whole({ name: 'going', uid: 'p4', labels: { [JOB_UID_LABEL]: 'gone' }, deleting: true, phase: 'Failed' }),
    whole({ name: 'kueue-run', uid: 'p5', labels: { [JOB_UID_LABEL]: 'unseen', [KUEUE_PODSET_LABEL]: 'main' } }),
    whole({ name: 'plain', uid: 'p6', labels: { [JOB_UID_LABEL]: 'unseen' } }),
    whole({ name: 'live-job', uid: 'p7', labels: { [JOB_UID_LABEL]: 'live' }, phase: 'Failed' }),
    whole({ name: 'no-phase', uid: 'p8', labels: { [JOB_UID_LABEL]: 'gone' } }),
    whole({ name: 'new-copy-pod', uid: 'p9', labels: { [JOB_UID_LABEL]: 'c5' }, phase: 'Failed' }),
  ];
  const copies = [
    whole({ name: 'ours', uid: 'c1', labels: { [ORIGIN_LABEL]: 'mk' } }),
    whole({ name: 'kept', uid: 'c2', labels: { [ORIGIN_LABEL]: 'mk' } }),
    whole({ name: 'theirs', uid: 'c3', labels: { [ORIGIN_LABEL]: 'other' } }),
    whole({ name: 'deleting', uid: 'c4', labels: { [ORIGIN_LABEL]: 'mk' }, deleting: true }),
    // Its original still in the manager, never witnessed yet: the core records it.
    whole({ name: 'kept-new', uid: 'c5', labels: { [ORIGIN_LABEL]: 'mk' } }),
  ];
  const liveJobUids = new Set(['live', 'c1', 'c2']);
  // 'live' and 'c2' have witness entries too: leaving their objects out must not drop them.
  const witnessed = new Map([
    ['gone', 'ml/train'],
    ['live', 'ml/live'],
    ['c2', 'ml/kept'],
  ]);
  const managers: [string, ManagerSnapshot][] = [
    [
      'a manager serving Jobs only',
      { live: new Set([keyOf(BATCH_JOB, 'ml', 'kept'), keyOf(BATCH_JOB, 'ml', 'kept-new')]), listed: new Set([kindKey(BATCH_JOB)]) },
    ],
    [
      'a manager serving Jobs and Workloads',
      {
        live: new Set([keyOf(BATCH_JOB, 'ml', 'kept'), keyOf(WORKLOAD, 'ml', 'kept'), keyOf(WORKLOAD, 'ml', 'ours')]),
        listed: new Set([kindKey(BATCH_JOB), kindKey(WORKLOAD)]),
      },
    ],
  ];
  type Keep = (kind: JobKind, o: RemoteObject) => RemoteObject | undefined;
  const snapshot = (keep: Keep, keepPod: (p: RemoteObject) => RemoteObject | undefined): WorkerSnapshot => ({
    copies: [BATCH_JOB, WORKLOAD].map((kind) => ({ kind, items: copies.flatMap((o) => keep(kind, o) ?? []) })),
    liveJobUids,
    jobPods: pods.flatMap((p) => keepPod(p) ?? []),
    witnessed,
  });

  it.each(managers)('leaves the orphan core deciding exactly as on whole objects, with %s', (_, manager) => {
    const config = { origin: 'mk', limit: 3 };
    const full = orphans(
      snapshot(
        (_kind, o) => o,
        (p) => p,
      ),
      manager,
      config,
    );
    // Every kind of answer is exercised: deletes, reports, the limit, a witness entry to add.
    const actions = new Set(full.decisions.map((d) => d.action));
    for (const a of ['delete', 'report', 'deferred']) expect(actions).toContain(a);
    expect([...full.witness.add.keys()]).toEqual(['c1', 'c5']);
    expect(
      orphans(
        snapshot((_kind, o) => compactRemote(o), compactRemote),
        manager,
        config,
      ),
    ).toEqual(full);
    const kept = snapshot(
      (kind, o) => keepCopy(kind, o, { origin: 'mk', manager, witnessed }),
      (p) => keepJobPod(p, liveJobUids),
    );
    expect(kept.jobPods.map((p) => p.metadata.name)).not.toContain('live-job');
    expect(kept.copies[0]!.items.map((o) => o.metadata.name)).not.toContain('kept');
    expect(orphans(kept, manager, config)).toEqual(full);
  });

  it("builds the manager's keys exactly as the core looks them up", () => {
    for (const [kind, ns, name] of [
      [BATCH_JOB, 'ml', 'train'],
      [WORKLOAD, 'team-a', 'job-train-1a2b3'],
      [{ group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet', plural: 'jobsets' }, 'x', 'y.z'],
    ] as const)
      expect(keyOf(kind, ns, name)).toBe(`${kindKey(kind)}/${ns}/${name}`);
  });
});

import { describe, expect, it } from 'vitest';
import { snapshotNeeds } from './needs.js';
import { policyOf } from '../../test/fixtures/policy.js';

const base = [{ name: 'RemoveFailedPods' }];
const none = { nodes: false, namespaces: false, pdbs: false, priorityClasses: false, pvcs: false, allPods: false };

describe('snapshotNeeds', () => {
  it.each([
    { name: 'a plain policy needs nothing but the pod', evictor: undefined, top: undefined, want: {} },
    { name: 'nodeFit needs nodes and every pod', evictor: { nodeFit: true }, want: { nodes: true, allPods: true } },
    { name: 'a policy nodeSelector needs nodes', top: { nodeSelector: 'pool=batch' }, want: { nodes: true } },
    { name: 'minReplicas above 1 needs sibling pods', evictor: { minReplicas: 2 }, want: { allPods: true } },
    { name: 'a namespaceLabelSelector needs namespaces', evictor: { namespaceLabelSelector: { matchLabels: { a: 'b' } } }, want: { namespaces: true } },
    { name: 'PodsWithoutPDB needs PodDisruptionBudgets', evictor: { podProtections: { extraEnabled: ['PodsWithoutPDB'] } }, want: { pdbs: true } },
    { name: 'a custom priority class threshold needs priority classes', evictor: { priorityThreshold: { name: 'gold' } }, want: { priorityClasses: true } },
    { name: 'a built-in priority class threshold needs nothing', evictor: { priorityThreshold: { name: 'system-cluster-critical' } }, want: {} },
    {
      name: 'protected storage classes need PVCs',
      evictor: { podProtections: { extraEnabled: ['PodsWithPVC'], config: { PodsWithPVC: { protectedStorageClasses: [{ name: 'local' }] } } } },
      want: { pvcs: true },
    },
  ])('$name', ({ evictor, top, want }) => {
    expect(snapshotNeeds(policyOf(base, { evictor, top }))).toEqual({ ...none, ...want });
  });
});

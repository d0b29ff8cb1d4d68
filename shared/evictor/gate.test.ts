import { describe, expect, it } from 'vitest';
import { decide } from '../selection/decide.js';
import type { Snapshot } from '../selection/snapshot.js';
import { NOW, node, pod, type PodBuilder } from '../../test/fixtures/pods.js';
import { policyOf } from '../../test/fixtures/policy.js';

// The gate through decide: a PodLifeTime that selects every pod older than a minute, so
// whatever is kept, the gate kept.

type Row = { name: string; evictor?: Record<string, unknown>; pod: PodBuilder; extra?: Partial<Snapshot>; top?: Record<string, unknown>; kept: string | null };

function run(row: Row) {
  const policy = policyOf([{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 60 } }], { evictor: row.evictor, top: row.top });
  return decide(policy, { pods: [row.pod.build()], ...row.extra }, NOW);
}

describe('the evictor gate', () => {
  it.each<Row>([
    { name: 'an ordinary owned pod passes', pod: pod('ok'), kept: null },
    { name: 'a terminating pod is kept', pod: pod('t').terminating(), kept: 'pod is already terminating' },
    { name: 'a mirror pod is kept', pod: pod('m').annotate('kubernetes.io/config.mirror', 'x'), kept: 'pod is a mirror pod' },
    { name: 'a static pod is kept', pod: pod('s').annotate('kubernetes.io/config.source', 'file'), kept: 'pod is a static pod' },
    { name: 'a pod in kube-system is kept by default', pod: pod('k').inNamespace('kube-system'), kept: 'namespace kube-system is protected' },
    {
      name: 'a mirror pod is kept even with the evict annotation',
      pod: pod('m2').annotate('kubernetes.io/config.mirror', 'x').annotate('descheduler.alpha.kubernetes.io/evict'),
      kept: 'pod is a mirror pod',
    },
    { name: 'a bare running pod is kept', pod: pod('b').bare(), kept: 'pod has no owner (FailedBarePods protection)' },
    {
      name: 'a bare Failed pod is kept while FailedBarePods protection is on',
      pod: pod('bf').bare().failed(),
      kept: 'pod has no owner (FailedBarePods protection)',
    },
    {
      name: 'a bare Failed pod passes when FailedBarePods is disabled',
      evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
      pod: pod('bf2').bare().failed(),
      kept: null,
    },
    {
      name: 'a bare running pod is kept even when FailedBarePods is disabled',
      evictor: { podProtections: { defaultDisabled: ['FailedBarePods'] } },
      pod: pod('br').bare(),
      kept: 'pod has no owner and is not Failed',
    },
    {
      name: 'the deprecated evictFailedBarePods flag works like disabling FailedBarePods',
      evictor: { evictFailedBarePods: true },
      pod: pod('bf3').bare().failed(),
      kept: null,
    },
    { name: 'a DaemonSet pod is kept', pod: pod('ds').ownedBy('DaemonSet'), kept: 'pod belongs to a DaemonSet (DaemonSetPods protection)' },
    {
      name: 'a DaemonSet pod passes when DaemonSetPods is disabled',
      evictor: { podProtections: { defaultDisabled: ['DaemonSetPods'] } },
      pod: pod('ds2').ownedBy('DaemonSet'),
      kept: null,
    },
    { name: 'a system-critical pod is kept', pod: pod('c').priority(2_000_000_000), kept: 'pod has system-critical priority (SystemCriticalPods protection)' },
    {
      name: 'a pod naming a system-critical class is kept without a priority value',
      pod: pod('c2').priority(0, 'system-node-critical'),
      kept: 'pod has system-critical priority (SystemCriticalPods protection)',
    },
    {
      name: 'a pod at the priority threshold value is kept',
      evictor: { priorityThreshold: { value: 1000 } },
      pod: pod('p').priority(1000),
      kept: 'pod priority 1000 is at or above the threshold 1000',
    },
    { name: 'a pod below the priority threshold passes', evictor: { priorityThreshold: { value: 1000 } }, pod: pod('p2').priority(999), kept: null },
    {
      name: 'a priority threshold naming an unknown class keeps the pod',
      evictor: { priorityThreshold: { name: 'gold' } },
      pod: pod('p3').priority(5),
      kept: 'priority class gold is unknown',
    },
    {
      name: 'a priority threshold by class name uses the class value',
      evictor: { priorityThreshold: { name: 'gold' } },
      pod: pod('p4').priority(50),
      extra: { priorityClasses: [{ metadata: { name: 'gold' }, value: 10 }] },
      kept: 'pod priority 50 is at or above the threshold 10',
    },
    { name: 'a pod with an emptyDir is kept', pod: pod('e').volume('emptyDir'), kept: 'pod has local storage (PodsWithLocalStorage protection)' },
    {
      name: 'a pod with a hostPath passes when evictLocalStoragePods is set',
      evictor: { evictLocalStoragePods: true },
      pod: pod('h').volume('hostPath'),
      kept: null,
    },
    { name: 'a pod with a PVC passes by default', pod: pod('v').volume('pvc'), kept: null },
    {
      name: 'a pod with a PVC is kept with PodsWithPVC',
      evictor: { podProtections: { extraEnabled: ['PodsWithPVC'] } },
      pod: pod('v2').volume('pvc'),
      kept: 'pod uses a PersistentVolumeClaim (PodsWithPVC protection)',
    },
    {
      name: 'a PVC of an unprotected storage class passes when classes are listed',
      evictor: { podProtections: { extraEnabled: ['PodsWithPVC'], config: { PodsWithPVC: { protectedStorageClasses: [{ name: 'local' }] } } } },
      pod: pod('v3').volume('pvc', 'scratch'),
      extra: { pvcStorageClasses: new Map([['default/scratch', 'standard']]) },
      kept: null,
    },
    {
      name: 'a PVC without a storage class is kept when classes are listed (its class cannot be shown unprotected)',
      evictor: { podProtections: { extraEnabled: ['PodsWithPVC'], config: { PodsWithPVC: { protectedStorageClasses: [{ name: 'local' }] } } } },
      pod: pod('v4').volume('pvc', 'classless'),
      extra: { pvcStorageClasses: new Map([['default/classless', '']]) },
      kept: 'pod uses a PersistentVolumeClaim of a protected storage class (PodsWithPVC protection)',
    },
    {
      name: 'a pod without a PDB is kept with PodsWithoutPDB',
      evictor: { podProtections: { extraEnabled: ['PodsWithoutPDB'] } },
      pod: pod('n').labels({ app: 'x' }),
      extra: { pdbs: [] },
      kept: 'pod has no PodDisruptionBudget (PodsWithoutPDB protection)',
    },
    {
      name: 'a pod covered by a PDB passes PodsWithoutPDB',
      evictor: { podProtections: { extraEnabled: ['PodsWithoutPDB'] } },
      pod: pod('n2').labels({ app: 'x' }),
      extra: { pdbs: [{ metadata: { namespace: 'default', name: 'x' }, spec: { selector: { matchLabels: { app: 'x' } } } }] },
      kept: null,
    },
    {
      name: 'a pod with ResourceClaims is kept with PodsWithResourceClaims',
      evictor: { podProtections: { extraEnabled: ['PodsWithResourceClaims'] } },
      pod: pod('r').resourceClaim(),
      kept: 'pod uses ResourceClaims (PodsWithResourceClaims protection)',
    },
    {
      name: 'the evict annotation overrides protections',
      pod: pod('forced').bare().volume('emptyDir').annotate('descheduler.alpha.kubernetes.io/evict'),
      kept: null,
    },
    {
      name: 'prefer-no-eviction is honoured when the policy is Mandatory',
      evictor: { noEvictionPolicy: 'Mandatory' },
      pod: pod('shy').annotate('descheduler.alpha.kubernetes.io/prefer-no-eviction'),
      kept: 'pod asks not to be evicted and noEvictionPolicy is Mandatory',
    },
    { name: 'prefer-no-eviction is only a preference by default', pod: pod('shy2').annotate('descheduler.alpha.kubernetes.io/prefer-no-eviction'), kept: null },
    {
      name: 'the evictor labelSelector keeps pods it does not match',
      evictor: { labelSelector: { matchLabels: { tidy: 'yes' } } },
      pod: pod('l'),
      kept: 'pod labels do not match the evictor labelSelector',
    },
    {
      name: 'the namespaceLabelSelector keeps pods when namespace labels are unknown',
      evictor: { namespaceLabelSelector: { matchLabels: { env: 'dev' } } },
      pod: pod('nl'),
      kept: 'labels of namespace default unknown (namespaceLabelSelector)',
    },
    {
      name: 'the namespaceLabelSelector passes pods in a matching namespace',
      evictor: { namespaceLabelSelector: { matchLabels: { env: 'dev' } } },
      pod: pod('nl2'),
      extra: { namespaces: [{ metadata: { name: 'default', labels: { env: 'dev' } } }] },
      kept: null,
    },
    {
      name: 'minReplicas keeps a pod whose owner has too few pods',
      evictor: { minReplicas: 2 },
      pod: pod('single'),
      kept: 'owner has 1 pods, fewer than minReplicas 2',
    },
    {
      name: 'minPodAge keeps a pod that started recently',
      evictor: { minPodAge: '3h' },
      pod: pod('fresh').age(7200),
      kept: 'pod is younger than minPodAge 3h',
    },
    { name: 'minPodAge passes a pod that started long ago', evictor: { minPodAge: '1h30m' }, pod: pod('seasoned').age(7200), kept: null },
    {
      name: 'the policy nodeSelector keeps pods on other nodes',
      top: { nodeSelector: 'pool=batch' },
      pod: pod('ns'),
      extra: { nodes: [node('node-1', { labels: { pool: 'web' } })] },
      kept: 'node node-1 is outside the policy nodeSelector',
    },
    {
      name: 'nodeFit keeps a running pod that fits no other node',
      evictor: { nodeFit: true },
      pod: pod('big').requests('8', '1Gi'),
      extra: { nodes: [node('node-1'), node('node-2', { cpu: '4' })] },
      kept: 'pod fits no other node (nodeFit)',
    },
    {
      name: 'nodeFit passes a running pod that fits elsewhere',
      evictor: { nodeFit: true },
      pod: pod('small').requests('1', '1Gi'),
      extra: { nodes: [node('node-1'), node('node-2')] },
      kept: null,
    },
    {
      name: 'nodeFit ignores a tainted node the pod does not tolerate',
      evictor: { nodeFit: true },
      pod: pod('t2').requests('1', '1Gi'),
      extra: { nodes: [node('node-1'), node('node-2', { taints: [{ key: 'gpu', effect: 'NoSchedule' }] })] },
      kept: 'pod fits no other node (nodeFit)',
    },
    { name: 'nodeFit does not apply to terminal pods, which are deleted, not moved', evictor: { nodeFit: true }, pod: pod('done').succeeded(), kept: null },
    // Found by the differential test against the descheduler (test/conformance).
    {
      name: 'the priority threshold is not applied when SystemCriticalPods protection is off',
      evictor: { priorityThreshold: { value: 1000 }, evictSystemCriticalPods: true },
      pod: pod('p5').priority(5000),
      kept: null,
    },
    {
      name: 'the priority threshold is not applied when SystemCriticalPods is disabled',
      evictor: { priorityThreshold: { value: 1000 }, podProtections: { defaultDisabled: ['SystemCriticalPods'] } },
      pod: pod('p6').priority(5000),
      kept: null,
    },
    {
      name: 'the evict annotation does not bypass nodeFit',
      evictor: { nodeFit: true },
      pod: pod('big2').requests('8', '1Gi').annotate('descheduler.alpha.kubernetes.io/evict'),
      extra: { nodes: [node('node-1'), node('node-2', { cpu: '4' })] },
      kept: 'pod fits no other node (nodeFit)',
    },
    {
      name: 'the evict annotation does not bypass the namespaceLabelSelector',
      evictor: { namespaceLabelSelector: { matchLabels: { env: 'dev' } } },
      pod: pod('nl3').annotate('descheduler.alpha.kubernetes.io/evict'),
      extra: { namespaces: [{ metadata: { name: 'default', labels: { env: 'prod' } } }] },
      kept: 'namespace labels do not match the evictor namespaceLabelSelector',
    },
    {
      name: 'the evict annotation does not bring in a pod outside the policy nodeSelector',
      top: { nodeSelector: 'pool=batch' },
      pod: pod('ns2').annotate('descheduler.alpha.kubernetes.io/evict'),
      extra: { nodes: [node('node-1', { labels: { pool: 'web' } })] },
      kept: 'node node-1 is outside the policy nodeSelector',
    },
    {
      name: 'a pod on a NotReady node is kept when nodes are known',
      pod: pod('nr'),
      extra: { nodes: [{ ...node('node-1'), status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }] },
      kept: 'node node-1 is not Ready',
    },
    {
      name: 'a pod on a node missing from the known nodes is kept',
      pod: pod('gone').onNode('node-9'),
      extra: { nodes: [node('node-1')] },
      kept: "node node-9 is not in the cluster's node list",
    },
    {
      name: 'a pod on a NotReady node is kept even with the evict annotation',
      pod: pod('nr2').annotate('descheduler.alpha.kubernetes.io/evict'),
      extra: { nodes: [{ ...node('node-1'), status: { conditions: [{ type: 'Ready', status: 'False' }] } }] },
      kept: 'node node-1 is not Ready',
    },
    { name: 'node readiness is not judged when the snapshot has no nodes', pod: pod('nn'), kept: null },
    {
      name: 'nodeFit compares only what the pod requests: a pod without requests fits an overcommitted node',
      evictor: { nodeFit: true },
      pod: pod('light'),
      extra: { nodes: [node('node-1'), node('node-2', { cpu: '1' })], contextPods: [pod('hog').onNode('node-2').requests('2', '1Gi').build()] },
      kept: null,
    },
  ])('$name', (row) => {
    const plan = run(row);
    if (row.kept === null) {
      expect(plan.kept).toEqual([]);
      expect(plan.decisions).toHaveLength(1);
    } else {
      expect(plan.decisions).toEqual([]);
      expect(plan.kept.map((k) => k.reason)).toEqual([row.kept]);
    }
  });

  it('protected namespaces are configurable', () => {
    const policy = policyOf([{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 60 } }]);
    const pods = [pod('a').inNamespace('kube-system').build(), pod('b').inNamespace('payments').build()];
    const plan = decide(policy, { pods }, NOW, { protectedNamespaces: ['payments'] });
    expect(plan.decisions.map((d) => d.name)).toEqual(['a']);
  });
});

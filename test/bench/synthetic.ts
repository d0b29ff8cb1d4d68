import type { Pod } from '../../shared/model/objects.js';

// A synthetic cluster snapshot shaped like a busy batch/ML cluster: mostly running pods,
// a tail of finished and failed Job pods, some crash loops. Deterministic (seeded).

/**
 * `terminal` is the share of Succeeded + Failed pods (3:2). The default 0.25 is a backlog
 * (a cluster that only polls); an event-driven cluster holds about 0.02 between sweeps.
 */
export function syntheticPods(count: number, now: number, seed = 42, terminal = 0.25): Pod[] {
  let s = seed >>> 0;
  const rand = () => {
    // xorshift32: fast, seedable, good enough for a workload mix.
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  const namespaces = Array.from({ length: 50 }, (_, i) => `team-${i}`);
  const pods: Pod[] = [];
  for (let i = 0; i < count; i++) {
    const r = rand();
    const running = 0.95 - terminal;
    const phase = r < running ? 'Running' : r < running + terminal * 0.6 ? 'Succeeded' : r < 0.95 ? 'Failed' : 'Pending';
    // Second precision, as metav1.Time serializes.
    const created = `${new Date(now - Math.floor(rand() * 7 * 86400_000)).toISOString().slice(0, 19)}Z`;
    const exitCode = phase === 'Failed' ? [1, 3, 137, 143, 2][Math.floor(rand() * 5)]! : 0;
    const job = phase === 'Succeeded' || phase === 'Failed' || rand() < 0.2;
    pods.push({
      metadata: {
        name: `pod-${i}`,
        namespace: i % 997 === 0 ? 'kube-system' : namespaces[i % namespaces.length],
        uid: `uid-${i}`,
        resourceVersion: String(i),
        creationTimestamp: created,
        labels: { app: `app-${i % 200}`, tier: i % 3 === 0 ? 'batch' : 'serving' },
        ownerReferences: [{ kind: job ? 'Job' : 'ReplicaSet', name: `owner-${i % 5000}`, uid: `owner-${i % 5000}` }],
      },
      spec: { nodeName: `node-${i % 5000}`, priority: 0, containers: [{ name: 'main' }] },
      status: {
        phase,
        startTime: created,
        conditions: [
          {
            type: 'Ready',
            status: phase === 'Running' ? 'True' : 'False',
            reason: phase === 'Succeeded' ? 'PodCompleted' : undefined,
            lastTransitionTime: created,
          },
        ],
        containerStatuses: [
          {
            name: 'main',
            restartCount: phase === 'Running' && rand() < 0.05 ? Math.floor(rand() * 30) : 0,
            state:
              phase === 'Succeeded' || phase === 'Failed'
                ? { terminated: { exitCode, reason: exitCode === 137 ? 'OOMKilled' : exitCode === 0 ? 'Completed' : 'Error' } }
                : phase === 'Pending'
                  ? { waiting: { reason: rand() < 0.5 ? 'ImagePullBackOff' : 'ContainerCreating' } }
                  : { running: { startedAt: created } },
          },
        ],
      },
    });
  }
  return pods;
}

// The kwok stages keyed on a container's command (kwok-stages.yaml, "Commands kwok plays" in
// test/harness/README.md): what the kubelet would report for /bin/false, `sh -c "exit 0"` and
// a container that keeps exiting 1 under restartPolicy Always; pods running anything else keep
// the plain Pending -> Running lifecycle, and /bin/descheduler pods are left alone for the
// descheduler stand-in.
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';

const ns = testNamespace('kwokcmd');
const core = sharedCluster().kubeConfig().makeApiClient(CoreV1Api);

function commandPod(name: string, restartPolicy: string, command: string[], args?: string[]): V1Pod {
  return { metadata: { name }, spec: { restartPolicy, containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10', command, args }] } };
}

async function create(pod: V1Pod): Promise<string> {
  await core.createNamespacedPod({ namespace: ns.name, body: pod });
  return pod.metadata!.name!;
}

const read = (name: string) => core.readNamespacedPod({ name, namespace: ns.name });

describe('kwok plays a container by its command', () => {
  it('/bin/false under restartPolicy Never: Failed, exit code 1, reason Error', async () => {
    const name = await create(commandPod('false', 'Never', ['/bin/false']));
    const pod = await waitFor('the pod Failed', async () => ((await read(name)).status?.phase === 'Failed' ? read(name) : undefined));
    const status = pod.status!.containerStatuses![0]!;
    expect(status.state?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(status.restartCount).toBe(0);
    expect(pod.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PodFailed' });
  });

  it('sh -c "exit 0" under restartPolicy Never: Succeeded, exit code 0, Initialized with reason PodCompleted', async () => {
    const name = await create(commandPod('exit-0', 'Never', ['/bin/sh', '-c', 'exit 0']));
    const pod = await waitFor('the pod Succeeded', async () => ((await read(name)).status?.phase === 'Succeeded' ? read(name) : undefined));
    expect(pod.status!.containerStatuses![0]!.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(pod.status?.conditions?.find((c) => c.type === 'Initialized')).toMatchObject({ status: 'True', reason: 'PodCompleted' });
  });

  it('sh -c "sleep 1s && exit 1" under restartPolicy Always: Running, restarting, last run terminated with exit code 1', async () => {
    const name = await create(commandPod('crashloop', 'Always', ['/bin/sh'], ['-c', 'sleep 1s && exit 1']));
    const counts: number[] = [];
    const pod = await waitFor(
      'two restarts',
      async () => {
        const p = await read(name);
        const count = p.status?.containerStatuses?.[0]?.restartCount;
        if (count !== undefined && counts.at(-1) !== count) counts.push(count);
        return (count ?? 0) >= 2 ? p : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(pod.status?.phase).toBe('Running');
    const status = pod.status!.containerStatuses![0]!;
    expect(status.state?.running).toBeDefined();
    expect(status.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(counts).toEqual([...counts].sort((a, b) => a - b)); // only ever up
  });

  it('any other command keeps the plain lifecycle: Running, no restarts', async () => {
    const name = await create(commandPod('sleeper', 'Always', ['/bin/sh'], ['-c', 'sleep 3600']));
    const pod = await waitFor('the pod Running', async () => ((await read(name)).status?.phase === 'Running' ? read(name) : undefined));
    expect(pod.status!.containerStatuses![0]!.restartCount).toBe(0);
  });

  it('/bin/descheduler is left to the descheduler stand-in: bound, still Pending', async () => {
    const name = await create(commandPod('descheduler', 'Always', ['/bin/descheduler'], ['--v', '4']));
    await waitFor('the pod bound to a node', async () => Boolean((await read(name)).spec?.nodeName));
    await new Promise((r) => setTimeout(r, 2000)); // kwok would have played a stage by now
    expect((await read(name)).status?.phase).toBe('Pending');
  });
});

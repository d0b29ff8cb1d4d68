import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../evacuation/core/annotations.js';
import { Notifier } from '../../notify/notifier.js';
import { admissionPort, type Admission } from '../../kube/admission.js';
import type { KubeClients } from '../../kube/clients.js';
import { countRequestSent } from '../../kube/request-tally.js';
import { ClusterWriter, type WriterClients } from '../../kube/writer.js';
import type { Node, Pod } from '../../model/objects.js';
import { node, wpod } from '../../../test/fixtures/defrag.js';
import { smallCluster } from '../../../test/fixtures/defrag-clusters.js';
import { CORDONED, IN_FLIGHT, inFlightOf, MARK } from '../core/marks.js';
import { defragStep, type StepReport } from './step.js';

// One defragmentation step against a cluster kept in memory, with the real writer: what a move
// of a pod its owner marked request-evict-only sends (its evacuation request, never an
// eviction), how the next steps follow it, and how many requests each step reports. Every fake
// API call counts itself as the client middleware would (clients.ts), so a step's `requests`
// is what its tally saw, compared with the calls the fake received.

const SETTLE_MS = 120_000;

/** No limits here (the policy's are the brakes', tested with them): every eviction admitted. */
const ADMIT_ALL: Admission = admissionPort({ admit: async () => ({ ticket: { counters: [] } }), settle: () => undefined });

function cluster(nodes: Node[], pods: Pod[]) {
  const state = { nodes: structuredClone(nodes), pods: structuredClone(pods) };
  const calls: string[] = [];
  const sent = (what: string) => {
    countRequestSent();
    calls.push(what);
  };
  const podNamed = (name: string) => state.pods.find((p) => p.metadata.name === name)!;
  const core = {
    listNode: async () => (sent('list nodes'), { items: structuredClone(state.nodes) }),
    listPodForAllNamespaces: async () => (sent('list pods'), { metadata: {}, items: structuredClone(state.pods) }),
    patchNode: async ({
      name,
      body,
    }: {
      name: string;
      body: { metadata: { annotations?: Record<string, string | null> }; spec?: { unschedulable: boolean } };
    }) => {
      sent(`patch node ${name}`);
      const n = state.nodes.find((x) => x.metadata.name === name)!;
      const annotations = { ...n.metadata.annotations };
      for (const [k, v] of Object.entries(body.metadata.annotations ?? {}))
        if (v === null) delete annotations[k];
        else annotations[k] = v;
      n.metadata.annotations = annotations;
      if (body.spec) n.spec = { ...n.spec, unschedulable: body.spec.unschedulable };
      return n;
    },
    patchNamespacedPod: async ({ name, body }: { name: string; body: { metadata: { annotations: Record<string, string> } } }) => {
      sent(`patch pod ${name}`);
      const p = podNamed(name);
      p.metadata.annotations = { ...p.metadata.annotations, ...body.metadata.annotations };
      p.metadata.resourceVersion = `${p.metadata.resourceVersion}+`;
      return p;
    },
    createNamespacedPodEviction: async ({ name }: { name: string }) => {
      sent(`evict pod ${name}`);
      podNamed(name).metadata.deletionTimestamp = new Date(0).toISOString();
      return {};
    },
  };
  const policy = { listPodDisruptionBudgetForAllNamespaces: async () => (sent('list budgets'), { items: [] }) };
  const clients = { core, policy } as unknown as Pick<KubeClients, 'core' | 'policy'>;
  const writer = new ClusterWriter({ ...clients, podWrites: clients.core, events: {}, custom: {} } as unknown as WriterClients, {
    dryRun: false,
    recordEvents: false,
    protectedNamespaces: [],
  });
  /** One step at `now`; answers its report with the calls it made. */
  const step = async (now: number): Promise<{ report: StepReport; calls: string[] }> => {
    const before = calls.length;
    const report = await defragStep({ clients, writer, admission: ADMIT_ALL, notifier: Notifier.off() }, { now, settleTimeoutMs: SETTLE_MS, pageSize: 500 });
    return { report, calls: calls.slice(before) };
  };
  return { state, podNamed, step };
}

const READS = ['list nodes', 'list budgets', 'list pods'];
const marked = () => wpod('a-1').app('a').on('n1').annotate(ANNOTATIONS.requestEvictOnly).build();
const other = () => wpod('b-1').app('b').on('n2').build();
const n1 = (c: ReturnType<typeof cluster>) => c.state.nodes.find((n) => n.metadata.name === 'n1')!;

describe('defragStep and request-evict-only', () => {
  it("a marked running pod's move asks for its evacuation instead of evicting it, and is in flight as an eviction would be", async () => {
    const c = cluster([node('n1'), node('n2')], [marked(), other()]);
    const { report, calls } = await c.step(1_000);
    expect(report).toMatchObject({ outcome: 'evacuation-requested', move: { pod: { name: 'a-1' }, from: 'n1', to: 'n2', frees: 'n1' } });
    expect(report.message).toContain(`evacuation requested (${ANNOTATIONS.request}=defrag)`);
    expect(calls).toEqual([...READS, 'patch node n1', 'patch pod a-1', 'patch node n1']);
    expect(calls.some((x) => x.startsWith('evict'))).toBe(false);
    // Counted by the tally: the three reads, the target's mark, the request, the in-flight record.
    expect(report.requests).toBe(6);
    expect(c.podNamed('a-1').metadata.annotations?.[ANNOTATIONS.request]).toBe('defrag');
    expect(c.podNamed('a-1').metadata.deletionTimestamp).toBeUndefined();
    expect(n1(c).metadata.annotations).toMatchObject({ [MARK]: 'target', [CORDONED]: 'true' });
    expect(n1(c).spec?.unschedulable).toBe(true);
    expect(inFlightOf(n1(c))).toMatchObject({ move: { pod: { name: 'a-1' } }, at: 1_000, evacuation: true });
  });

  it('the next step waits while the pod is still there, then verifies it once the evacuation moved it (the source pod completed)', async () => {
    const c = cluster([node('n1'), node('n2')], [marked(), other()]);
    await c.step(1_000);

    // Still running (a live migration takes its time), even with its replacement already up: waiting.
    const replacement = wpod('a-2').app('a').on('n2').build();
    c.state.pods.push(replacement);
    const waiting = await c.step(2_000);
    expect(waiting.report).toMatchObject({ outcome: 'waiting', message: 'evacuation of a-1 under way', requests: 3 });
    expect(waiting.calls).toEqual(READS);

    // A migrated VM's source pod ends Succeeded, not deleted: it has left.
    c.podNamed('a-1').status = { ...c.podNamed('a-1').status, phase: 'Succeeded' };
    const done = await c.step(3_000);
    expect(done.report.verified).toEqual({ pod: 'default/a-1', expected: 'n2', landed: 'n2', asPlanned: true });
    expect(done.report).toMatchObject({ outcome: 'converged', nodesFreed: 1 });
    expect(done.calls).toEqual([...READS, 'patch node n1', 'patch node n1']);
    expect(done.report.requests).toBe(5);
    expect(n1(c).metadata.annotations?.[IN_FLIGHT]).toBeUndefined();
    expect(n1(c).metadata.annotations?.[MARK]).toBe('freed');
  });

  it('an evacuation that has not moved the pod within the settle timeout is dropped, and the pod is not chosen again while it is under way', async () => {
    const c = cluster([node('n1'), node('n2')], [marked(), other()]);
    await c.step(1_000);
    const late = await c.step(1_000 + SETTLE_MS);
    expect(late.report.verified).toMatchObject({ pod: 'default/a-1', asPlanned: false, drift: 'its evacuation did not move the pod in time: re-planned' });
    // Re-planned without it: n1 cannot be freed now, so it is given back (its cordon was kube-tidy's).
    expect(late.report.outcome).toBe('converged');
    expect(late.report.plan?.notFreed).toEqual([
      { node: 'n1', reason: expect.stringContaining('is marked request-evict-only and its evacuation is under way') },
      expect.objectContaining({ node: 'n2' }),
    ]);
    expect(late.calls).toEqual([...READS, 'patch node n1', 'patch node n1']);
    expect(n1(c).spec?.unschedulable).toBe(false);
    expect(n1(c).metadata.annotations?.[MARK]).toBeUndefined();
    expect(c.podNamed('a-1').metadata.deletionTimestamp).toBeUndefined();
  });

  it('an unmarked running pod is evicted as before', async () => {
    const c = cluster([node('n1'), node('n2')], [wpod('a-1').app('a').on('n1').build(), other()]);
    const { report, calls } = await c.step(1_000);
    expect(report).toMatchObject({ outcome: 'evicted', move: { pod: { name: 'a-1' } } });
    expect(report.message).toBeUndefined();
    expect(calls).toEqual([...READS, 'patch node n1', 'evict pod a-1', 'patch node n1']);
    expect(report.requests).toBe(6);
    expect(inFlightOf(n1(c))?.evacuation).toBeUndefined();

    // An eviction's pod is gone at once; the step waits for the replacement only.
    c.state.pods = c.state.pods.filter((p) => p.metadata.name !== 'a-1');
    expect((await c.step(2_000)).report).toMatchObject({ outcome: 'waiting', message: 'replacement of a-1 not running yet', requests: 3 });
  });
});

describe('defragStep carries out a chain of make-room moves', () => {
  it('seed 561: each step evicts the next move of the re-plan, the make-room moves hold their spots, and n2 ends freed', async () => {
    // A move that depends on earlier ones (b/app0-1 has a place only once b/app3-0 has left n5)
    // must still be the plan when the step after re-plans from the cluster as it is then.
    const { input } = smallCluster(561);
    const c = cluster([...input.nodes], [...input.pods]);
    const evicted: string[] = [];
    let now = 1_000;
    for (let i = 0; i < 10; i++) {
      const { report } = await c.step((now += 1_000));
      if (report.outcome === 'converged') break;
      expect(report.outcome).toBe('evicted');
      const move = report.move!;
      evicted.push(`${move.pod.name} ${move.from}>${move.to}`);
      // A held spot is cordoned until the blocker's replacement runs.
      if (move.reserveFor) expect(c.state.nodes.find((n) => n.metadata.name === move.from)?.spec?.unschedulable).toBe(true);
      // The scheduler places the replacement where the plan said: the evicted pod goes, a new one runs there.
      const gone = c.podNamed(move.pod.name);
      c.state.pods = c.state.pods.filter((p) => p !== gone);
      const replacement = structuredClone(gone);
      replacement.metadata = { ...replacement.metadata, name: `${move.pod.name}-r${i}`, uid: `${move.pod.uid}-r${i}`, deletionTimestamp: undefined };
      replacement.spec = { ...replacement.spec, nodeName: move.to };
      c.state.pods.push(replacement);
    }
    expect(evicted).toEqual(['app3-0 n5>n3', 'app0-1 n0>n5', 'app1-0 n2>n0']);
    const marks = Object.fromEntries(c.state.nodes.map((n) => [n.metadata.name, n.metadata.annotations?.[MARK]]).filter(([, m]) => m));
    expect(marks).toEqual({ n2: 'freed' });
    expect(c.state.nodes.filter((n) => n.spec?.unschedulable).map((n) => n.metadata.name)).toEqual(['n2']);
  });
});

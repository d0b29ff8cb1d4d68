// TEST STAND-IN for the evictionrequest-controller of KEP-4563, which Kubernetes v1.37.2 does
// not ship (k8s.io/kubernetes@v1.37.2 has no pkg/controller/evictionrequest). Everything else is
// real: the API server's lifecycle.k8s.io/v1alpha1 storage and its validation of every write
// below (pkg/apis/lifecycle/validation/validation.go refuses an Eviction status that breaks the
// state machine). It polls one namespace and plays only the controller's part, each rule with
// where it comes from ("types.go" = k8s.io/api@v0.37.2 lifecycle/v1alpha1/types.go):
//  R1 EvictionRequests with intent Eviction become one Eviction per target pod, labelled with
//     the requester ("acme.io/foo: requester") and responders (types.go, Eviction.metadata).
//  R2 status.requesters lists every requester with its intent (types.go, EvictionStatus.requesters).
//  R3 status.targetResponders = the pod's spec.evictionResponders plus the default
//     imperative-eviction.k8s.io/evictor at priority 100 (types.go, targetResponders "Default
//     responders"), taken in priority order, ties by domain (types.go TargetResponder.priority;
//     validation.go SortTargetResponders); one Active at a time, with startTime set
//     (types.go ResponderStateActive: "startTime has been set ... by the evictionrequest-controller").
//  R4 a responder that reported completionTime becomes Completed (types.go ResponderStateCompleted);
//     then the target gone means TargetEvicted (reason PodDeleted), else the next responder is Active.
//  R5 no heartbeat within 20 minutes: Interrupted, the next one Active (types.go "heartbeat
//     deadline ... currently 20 minutes"; the API server refuses it earlier, so tests never see it).
//  R6 no requester with intent Eviction left (withdrawn or deleted): the Active responder is
//     Canceled and the Eviction Failed with reason CanceledDueToNoRequesters (types.go
//     EvictionRequestSpec.intent, EvictionConditionReasonCanceledDueToNoRequesters).
//  R7 the default responder evicts through pods/<name>/eviction (types.go "It will call the
//     imperative Eviction API"), reporting its message; on success it completes.
//  R8 each EvictionRequest's status mirrors its Eviction's TargetEvicted/Failed conditions, with
//     observedGeneration (types.go EvictionRequestStatus: "managed by evictionrequest-controller").
// Not played: garbage collection of Evictions, PodGroups, the 11-responder limits.
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { kubectl } from '../../harness/index.js';

const L = { group: 'lifecycle.k8s.io', version: 'v1alpha1' } as const;
export const IMPERATIVE_EVICTOR = 'imperative-eviction.k8s.io/evictor';
const HEARTBEAT_DEADLINE_MS = 20 * 60_000;

type Cond = { type: string; status: string; reason: string; message: string; lastTransitionTime: string };
type Target = { name: string; priority: number; state: string };
type Resp = { name: string; startTime?: string; heartbeatTime?: string; completionTime?: string; message?: string };
type Er = {
  metadata: { name: string; generation: number; resourceVersion: string };
  spec: { target: { pod: { name: string; uid: string } }; requester: string; intent: string };
  status?: { conditions?: Cond[]; observedGeneration?: number };
};
type Ev = {
  metadata: { name: string; uid: string; resourceVersion: string; labels?: Record<string, string> };
  spec: { target: { pod: { name: string; uid: string } } };
  status?: { conditions?: Cond[]; requesters?: { name: string; intent: string }[]; targetResponders?: Target[]; responders?: Resp[] };
};

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const cond = (type: string, reason: string, message: string): Cond => ({ type, status: 'True', reason, message, lastTransitionTime: now() });

/** R3's order: priority high to low, then domain labels from the top, then the key. */
function sortResponders(rs: Target[]): Target[] {
  const parts = (n: string) => {
    const [domain = '', key = ''] = n.split('/', 2);
    return { domain: domain.split('.').reverse(), key };
  };
  return [...rs].sort((a, b) => {
    if (a.priority !== b.priority) return b.priority - a.priority;
    const [x, y] = [parts(a.name), parts(b.name)];
    for (let i = 0; i < Math.min(x.domain.length, y.domain.length); i++) if (x.domain[i] !== y.domain[i]) return x.domain[i]! < y.domain[i]! ? -1 : 1;
    if (x.domain.length !== y.domain.length) return x.domain.length - y.domain.length;
    return x.key < y.key ? -1 : x.key > y.key ? 1 : 0;
  });
}

export interface EvictionRequestStandIn {
  /** Evictions made (R1), by pod name. */
  made: Map<string, string>;
  /** Errors from the API server while playing (an invalid write would be a bug of the stand-in). */
  errors: string[];
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

export function startEvictionRequestStandIn(
  cluster: { kubeConfig(): KubeConfig; kubeconfigPath: string },
  ns: string,
  opts: { intervalMs?: number } = {},
): EvictionRequestStandIn {
  const kc = cluster.kubeConfig();
  // client-node's Pod model has no spec.evictionResponders (and drops it): read the pod's JSON.
  const respondersOf = async (name: string) =>
    (
      JSON.parse(await kubectl(cluster, ['get', 'pod', '-n', ns, name, '-o', 'json'])) as {
        spec: { evictionResponders?: { name: string; priority: number }[] };
      }
    ).spec.evictionResponders ?? [];
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const made = new Map<string, string>();
  const errors: string[] = [];
  let paused = false;
  let stopped = false;
  const list = async <T>(plural: string) => ((await custom.listNamespacedCustomObject({ ...L, plural, namespace: ns })) as { items: T[] }).items;
  const writeStatus = (plural: string, obj: object) =>
    custom.replaceNamespacedCustomObjectStatus({ ...L, plural, namespace: ns, name: (obj as Ev).metadata.name, body: obj });

  async function syncTarget(pod: { name: string; uid: string }, ers: Er[], ev: Ev | undefined): Promise<void> {
    const p = await core.readNamespacedPod({ namespace: ns, name: pod.name }).catch(() => undefined);
    const alive =
      p && p.metadata?.uid === pod.uid && !p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' ? p : undefined;
    const wanted = ers.some((r) => r.spec.intent === 'Eviction');
    if (!ev) {
      if (!wanted || !alive) return;
      // R1
      const declared = await respondersOf(pod.name);
      const labels = Object.fromEntries([...ers.map((r) => [r.spec.requester, 'requester']), ...declared.map((r) => [r.name, 'responder'])]);
      ev = (await custom.createNamespacedCustomObject({
        ...L,
        plural: 'evictions',
        namespace: ns,
        body: { apiVersion: 'lifecycle.k8s.io/v1alpha1', kind: 'Eviction', metadata: { name: pod.uid, labels }, spec: { target: { pod } } },
      })) as Ev;
      made.set(pod.name, ev.metadata.name);
      // R3: the first in order Active with its startTime, the rest Inactive.
      const targets = sortResponders([
        ...declared.map((r) => ({ name: r.name, priority: r.priority, state: 'Inactive' })),
        { name: IMPERATIVE_EVICTOR, priority: 100, state: 'Inactive' },
      ]);
      targets[0]!.state = 'Active';
      ev.status = {
        requesters: ers.map((r) => ({ name: r.spec.requester, intent: r.spec.intent })),
        targetResponders: targets,
        responders: targets.map((t) => ({ name: t.name, ...(t.state === 'Active' ? { startTime: now() } : {}) })),
      };
      await writeStatus('evictions', ev);
      return;
    }
    const st = ev.status ?? {};
    const final = st.conditions?.some((c) => (c.type === 'Failed' || c.type === 'TargetEvicted') && c.status === 'True');
    if (final) return;
    const targets = sortResponders(st.targetResponders ?? []);
    const responders = st.responders ?? [];
    const active = targets.find((t) => t.state === 'Active');
    const status = active && responders.find((r) => r.name === active.name);
    const next = { ...st, requesters: ers.map((r) => ({ name: r.spec.requester, intent: r.spec.intent })) }; // R2
    const activateAfter = (t: Target) => {
      const following = targets[targets.indexOf(t) + 1];
      if (following) {
        following.state = 'Active';
        responders.find((r) => r.name === following.name)!.startTime = now();
      }
      return following;
    };
    if (!wanted && active) {
      // R6
      active.state = 'Canceled';
      next.conditions = [...(st.conditions ?? []), cond('Failed', 'CanceledDueToNoRequesters', 'no EvictionRequest with intent Eviction')];
    } else if (active && status?.completionTime) {
      // R4
      active.state = 'Completed';
      if (!alive) next.conditions = [...(st.conditions ?? []), cond('TargetEvicted', 'PodDeleted', `evicted; ${active.name}: ${status.message ?? ''}`)];
      else if (!activateAfter(active)) next.conditions = [...(st.conditions ?? []), cond('Failed', 'NoFurtherResponder', 'no responder evicted the pod')];
    } else if (active && status && Date.now() - Date.parse(status.heartbeatTime ?? status.startTime ?? '') > HEARTBEAT_DEADLINE_MS) {
      // R5
      active.state = 'Interrupted';
      if (!activateAfter(active)) next.conditions = [...(st.conditions ?? []), cond('Failed', 'NoFurtherResponder', 'the last responder missed its heartbeat')];
    } else if (active?.name === IMPERATIVE_EVICTOR && status) {
      // R7
      try {
        if (alive)
          await core.createNamespacedPodEviction({
            namespace: ns,
            name: pod.name,
            body: { metadata: { name: pod.name, namespace: ns }, deleteOptions: { preconditions: { uid: pod.uid } } },
          });
        Object.assign(status, { heartbeatTime: now(), completionTime: now(), message: alive ? 'evicted through the Eviction API' : 'the pod is gone' });
      } catch (e) {
        const last = Date.parse(status.heartbeatTime ?? '');
        if (!Number.isNaN(last) && Date.now() - last < 20_000) return; // types.go: no heartbeat more often than 20 s
        Object.assign(status, { heartbeatTime: now(), message: `eviction refused: ${(e as Error).message.slice(0, 200)}` });
      }
    } else if (
      !next.requesters.some((r, i) => r.intent !== st.requesters?.[i]?.intent || r.name !== st.requesters?.[i]?.name) &&
      next.requesters.length === (st.requesters ?? []).length
    ) {
      return; // nothing changed
    }
    await writeStatus('evictions', { ...ev, status: { ...next, targetResponders: targets, responders } });
  }

  async function mirror(ers: Er[], evs: Ev[]): Promise<void> {
    // R8
    for (const er of ers) {
      const ev = evs.find((e) => e.spec.target.pod.uid === er.spec.target.pod.uid);
      const conditions = (ev?.status?.conditions ?? []).filter((c) => c.status === 'True');
      const observed = er.status?.observedGeneration === er.metadata.generation;
      const same = JSON.stringify(er.status?.conditions ?? []) === JSON.stringify(conditions);
      if (ev && (!observed || !same)) await writeStatus('evictionrequests', { ...er, status: { conditions, observedGeneration: er.metadata.generation } });
    }
  }

  async function once(): Promise<void> {
    const ers = await list<Er>('evictionrequests');
    const evs = await list<Ev>('evictions');
    const uids = new Set([...ers.map((r) => r.spec.target.pod.uid), ...evs.map((e) => e.spec.target.pod.uid)]);
    for (const uid of uids) {
      const mine = ers.filter((r) => r.spec.target.pod.uid === uid);
      const ev = evs.find((e) => e.spec.target.pod.uid === uid);
      const pod = mine[0]?.spec.target.pod ?? ev!.spec.target.pod;
      await syncTarget(pod, mine, ev);
    }
    await mirror(await list<Er>('evictionrequests'), await list<Ev>('evictions'));
  }

  const loop = (async () => {
    while (!stopped) {
      if (!paused) {
        try {
          await once();
        } catch (e) {
          const body = (e as { body?: unknown }).body;
          const msg = `${(e as Error).message} ${typeof body === 'string' ? body.slice(0, 400) : ''}`;
          // A conflict is retried next round; an object deleted since this round listed it (a
          // requester removing its EvictionRequest) is gone, with nothing left to reconcile.
          if (!/Conflict|the object has been modified|NotFound/.test(msg)) errors.push(msg);
        }
      }
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 150)); // polling: the stand-in keeps no watch
    }
  })();
  return {
    made,
    errors,
    pause: () => (paused = true),
    resume: () => (paused = false),
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

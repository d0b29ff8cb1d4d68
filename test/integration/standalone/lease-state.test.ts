// Issue 33 for the standalone host's fence Lease, on the real API server: two electors in this
// process (the host's own startElector over the project's Lease client), one Lease in a test
// namespace. A Lease deleted, or no longer naming its holder, while a replica leads: no other
// replica takes it before the claim it last saw could have ended, and the leader writes only
// once it holds it again by a write the API server orders. At no instant do two fences stand
// open. What was already right (a claim timed by the observer's clock, whatever renewTime says)
// is pinned too.
import { CoordinationV1Api, PatchStrategy, setHeaderOptions, V1MicroTime } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { leaseClient, type LeaseClient } from '../../../shared/kube/lease.js';
import { createLogger } from '../../../shared/log.js';
import { metricsExposition } from '../../../shared/metrics/exposition.js';
import { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import { startElector, type Elector } from '../../../shared/hosts/standalone/leader.js';
import { sharedCluster, testNamespace, waitFor } from '../../harness/index.js';

const ns = testNamespace('lease-state');
const LEASE = { duration: 3, renew: 2 };
const coordination = () => sharedCluster().kubeConfig().makeApiClient(CoordinationV1Api);
const started: Elector[] = [];
/** What the replicas count in (one recorder for the test process: its exposition sums theirs, as a scrape of each would). */
const metrics = new MetricsRecorder();
let n = 0;

afterEach(async () => {
  await Promise.all(started.splice(0).map((e) => e.stop()));
});

interface Replica {
  e: Elector;
  said: string[];
  /** holds() at the moment each create or update of the Lease was sent. */
  holdsAtWrite: boolean[];
}

function replica(me: string, name: string, retryPeriodSeconds: number): Replica {
  const said: string[] = [];
  const holdsAtWrite: boolean[] = [];
  const real = leaseClient(sharedCluster().kubeConfig(), { namespace: ns.name, name }, { timeoutMs: 1_000 });
  const ref: { e?: Elector } = {};
  // The real client, only watched: what the fence said when each write went out.
  const lease: LeaseClient = {
    read: () => real.read(),
    create: (spec) => (holdsAtWrite.push(ref.e?.holds() ?? false), real.create(spec)),
    update: (spec, rv) => (holdsAtWrite.push(ref.e?.holds() ?? false), real.update(spec, rv)),
  };
  const log = createLogger({ level: 'info', destination: { write: (l: string) => void said.push(l) } });
  const e = (ref.e = startElector({
    lease,
    me,
    leaseDurationSeconds: LEASE.duration,
    renewDeadlineSeconds: LEASE.renew,
    retryPeriodSeconds,
    log,
    metrics,
    onStarted: () => {},
    onLost: () => {},
  }));
  started.push(e);
  return { e, said, holdsAtWrite };
}

/** Samples both fences every 10 ms for `ms`: the instants both stood open. */
async function bothOpen(a: Elector, b: Elector, ms: number): Promise<number> {
  let both = 0;
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 10))) if (a.holds() && b.holds()) both++;
  return both;
}

async function unreadableTotal(found: string): Promise<number> {
  const line = (await metricsExposition(metrics)).body
    .split('\n')
    .find((l) => l.startsWith('kube_tidy_state_unreadable_total{') && l.includes('store="lease"') && l.includes(`found="${found}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

const leads = (r: Replica, what: string) => waitFor(what, async () => r.e.holds(), { timeoutMs: 15_000, intervalMs: 20 });
const holder = async (name: string) =>
  (
    await coordination()
      .readNamespacedLease({ namespace: ns.name, name })
      .catch(() => undefined)
  )?.spec?.holderIdentity;

describe('a fence Lease deleted or unreadable under a live leader', () => {
  it('deleted: the follower does not create it before the leader’s claim could have ended; the two fences are never open at once', async () => {
    const name = `lease-${++n}`;
    // The leader runs one round only: what stops it is its fence's deadline, nothing else.
    const p = replica('p', name, 3600);
    await leads(p, 'p to lead');
    const q = replica('q', name, 0.1);
    await new Promise((r) => setTimeout(r, 300)); // q's first rounds: it has seen p's claim
    await coordination().deleteNamespacedLease({ namespace: ns.name, name });
    expect(await bothOpen(p.e, q.e, 4_000)).toBe(0);
    await leads(q, 'q to lead once p’s claim ended');
    expect(q.said.join('')).toContain('the Lease was deleted: not taken before the last claim seen could have ended');
  });

  it('deleted: the leader is fenced from the moment it finds out until its own create succeeds, and says so', async () => {
    const name = `lease-${++n}`;
    const before = await unreadableTotal('deleted');
    const p = replica('p', name, 0.2);
    await leads(p, 'p to lead');
    const writes = p.holdsAtWrite.length;
    await coordination().deleteNamespacedLease({ namespace: ns.name, name });
    await waitFor('the Lease created again by p', async () => (await holder(name)) === 'p' && p.e.holds(), { timeoutMs: 10_000, intervalMs: 20 });
    // The write that brought it back went out with the fence shut.
    const create = p.holdsAtWrite.slice(writes).find((h) => h === false);
    expect(create, `holds() at each write since the delete: ${p.holdsAtWrite.slice(writes).join(', ')}`).toBe(false);
    expect(p.said.join('')).toContain('the Lease was deleted: this replica led: fenced until it holds the Lease again');
    expect(await unreadableTotal('deleted')).toBeGreaterThan(before);
    expect(p.e.isLeader()).toBe(true);
  });

  it('its holderIdentity removed: the follower waits the duration it states, the leader takes it back by an update at the resourceVersion read; never two fences open', async () => {
    const name = `lease-${++n}`;
    const before = await unreadableTotal('unreadable');
    const p = replica('p', name, 0.5);
    await leads(p, 'p to lead');
    const q = replica('q', name, 0.1);
    await new Promise((r) => setTimeout(r, 300));
    await coordination().patchNamespacedLease(
      { namespace: ns.name, name, body: [{ op: 'remove', path: '/spec/holderIdentity' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    expect(await bothOpen(p.e, q.e, 3_000)).toBe(0);
    expect(await holder(name)).toBe('p');
    expect(q.e.isLeader()).toBe(false);
    expect(p.said.join('')).toContain('the Lease was found naming no holder: this replica led');
    expect(await unreadableTotal('unreadable')).toBeGreaterThan(before);
  });
});

describe('what was already right', () => {
  it('another holder’s Lease with no leaseDurationSeconds and a renewTime long past is held for a full duration of ours from when it was seen', async () => {
    const name = `lease-${++n}`;
    await coordination().createNamespacedLease({
      namespace: ns.name,
      body: { metadata: { name }, spec: { holderIdentity: 'ghost', renewTime: new V1MicroTime('2000-01-01T00:00:00Z') } },
    });
    const t0 = Date.now();
    const q = replica('q', name, 0.1);
    await leads(q, 'q to take the ghost’s Lease');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(LEASE.duration * 1000);
    expect(await holder(name)).toBe('q');
  });

  it('a renewTime that is no time cannot be stored: the API server refuses it', async () => {
    const name = `lease-${++n}`;
    await coordination().createNamespacedLease({ namespace: ns.name, body: { metadata: { name }, spec: { holderIdentity: 'ghost' } } });
    const patched = coordination().patchNamespacedLease(
      { namespace: ns.name, name, body: [{ op: 'add', path: '/spec/renewTime', value: 'garbage' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    await expect(patched).rejects.toMatchObject({ code: expect.any(Number) });
  });
});

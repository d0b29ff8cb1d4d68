import { ApiException } from '@kubernetes/client-node';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { settleRemoval, type Admission } from '../../kube/admission.js';
import type { ClusterWriter } from '../../kube/writer.js';
import type { Policy } from '../../policy/policy.js';
import { policyOf } from '../../../test/fixtures/policy.js';
import { brakesAdmission } from './admission.js';
import { Brakes } from './brakes.js';

// The brakes as the admission port, over a real Brakes in a dry run (nothing is written; what
// it would have reserved is kept in the process) and a ledger the API server says is not there
// yet (404). What is checked: the policy's limits hold across admissions, a unit comes back
// when the API server did not remove the pod, the subject decides which budget is charged, and
// a deferral is told once (one Event) however many removals it holds back.

const NOW = Date.UTC(2026, 10, 28, 12, 1);
const subject = (namespace: string) => ({ namespace, node: 'n1', owner: `${namespace}/ReplicaSet/web` });

function admission(policy: Policy, tells?: boolean) {
  const reads: string[] = [];
  const events: string[] = [];
  const core = {
    readNamespacedConfigMap: async ({ namespace, name }: { namespace: string; name: string }) => {
      reads.push(`${namespace}/${name}`);
      throw new ApiException(404, 'not found', {}, {});
    },
  };
  const writer = {
    dryRun: true,
    recordNamespaceEvent: async (_ns: string, e: { once: string; reason: string }) => (events.push(e.reason), { recorded: true, name: e.once }),
  } as unknown as ClusterWriter;
  const brakes = new Brakes({ core, writer, namespace: 'kube-tidy', dryRun: true, now: () => NOW, holder: 'test' });
  const port: Admission = brakesAdmission({
    brakes,
    policy: () => policy,
    writer,
    log: pino({ level: 'silent' }),
    path: 'defrag',
    ...(tells === undefined ? {} : { tells }),
  });
  return { port, reads, events, close: () => brakes.close() };
}

const limited = (top: Record<string, unknown>) => policyOf([{ name: 'PodLifeTime', args: { maxPodLifeTimeSeconds: 60 } }], { top });

/** Admits `s`; a granted removal is settled as the API server answered (`removed`). */
async function remove(port: Admission, s: ReturnType<typeof subject>, removed = true) {
  const a = await port.admit(s);
  if ('ticket' in a) settleRemoval(a.ticket, { outcome: removed ? 'deleted' : 'gone' });
  return a;
}

describe('the brakes as the admission port', () => {
  it('admits up to maxNoOfPodsToEvictTotal in the window, then defers with the budget, told once', async () => {
    const { port, events, close } = admission(limited({ maxNoOfPodsToEvictTotal: 2 }));
    expect('ticket' in (await remove(port, subject('a')))).toBe(true);
    expect('ticket' in (await remove(port, subject('b')))).toBe(true);
    const third = await remove(port, subject('c'));
    expect(third).toMatchObject({ deferred: { kind: 'budget', budget: 'maxNoOfPodsToEvictTotal', scope: 'cluster', limit: 2 } });
    if (!('deferred' in third)) throw new Error('not deferred');
    // Windows are aligned to the epoch (15 minutes by default): this one ends at 12:15.
    expect(third.deferred.freesAt).toBe('2026-11-28T12:15:00.000Z');
    expect(await remove(port, subject('d'))).toHaveProperty('deferred');
    expect(events).toEqual(['BudgetExhausted']);
    close();
  });

  it('gives the unit back when the API server did not remove the pod (a refusal, a stale precondition)', async () => {
    const { port, close } = admission(limited({ maxNoOfPodsToEvictTotal: 1 }));
    expect('ticket' in (await remove(port, subject('a'), false))).toBe(true);
    expect('ticket' in (await remove(port, subject('a'), true))).toBe(true);
    expect(await remove(port, subject('a'))).toHaveProperty('deferred');
    close();
  });

  it('tells nothing when its caller tells its own deferrals (a pass, once at its end): still deferred', async () => {
    const { port, events, close } = admission(limited({ maxNoOfPodsToEvictPerNamespace: 1 }), false);
    expect('ticket' in (await remove(port, subject('quiet')))).toBe(true);
    expect(await remove(port, subject('quiet'))).toMatchObject({ deferred: { budget: 'maxNoOfPodsToEvictPerNamespace', key: 'quiet' } });
    expect(events).toEqual([]);
    close();
  });

  it("charges the subject's own scope: a namespace's budget spent holds back that namespace only", async () => {
    const { port, close } = admission(limited({ maxNoOfPodsToEvictPerNamespace: 1 }));
    expect('ticket' in (await remove(port, subject('a')))).toBe(true);
    expect(await remove(port, subject('a'))).toMatchObject({ deferred: { budget: 'maxNoOfPodsToEvictPerNamespace', scope: 'namespace', key: 'a' } });
    expect('ticket' in (await remove(port, subject('b')))).toBe(true);
    close();
  });

  it('admits every removal of a policy with no limits without reading the ledger', async () => {
    const { port, reads, events, close } = admission(limited({}));
    for (let i = 0; i < 5; i++) expect('ticket' in (await remove(port, subject('a')))).toBe(true);
    expect(reads).toEqual([]);
    expect(events).toEqual([]);
    close();
  });
});

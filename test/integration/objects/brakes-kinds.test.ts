// The brakes per kind, through the pass on the real control plane: a rate that counts Jobs
// ({max: 1, per: 1h, kinds: [Job]}) lets one finished Job go and defers the second, its unit
// counted in the ledger ConfigMap (kube-tidy-brakes) under a Job-keyed counter; the pods'
// maxNoOfPodsToEvictTotal of 0 does not stop a Job; and what Jobs spent is not the pods' budget
// (a pod rate of the same window and scope still admits a pod after a Job), nor the reverse.
import { beforeAll, describe, expect, it } from 'vitest';
import { counterOf, windowStart, type Meter } from '../../../shared/brakes/core/meters.js';
import { runObjectsPass } from '../../../shared/objects/index.js';
import { waitFor } from '../../harness/index.js';
import { spentAt, storedLedger } from '../brakes/helpers.js';
import { finishedJob, liveJob } from './fixtures.js';
import { objectsSuite, type TestHandle } from './handle.js';
import { settleRemoval } from '../../../shared/kube/admission.js';

const { ns, batch, handle } = objectsSuite('objects-brakes');
const HOUR = 3_600_000;
let h: TestHandle;
let policy: Record<string, unknown>;

beforeAll(() => void (h = handle({ policy: () => policy })));

const jobs = () => ({ name: 'finished-jobs', kind: 'Job', minAge: '0s', mode: 'delete', namespaces: { include: [ns.name] } });
const jobRate = { max: 1, per: '1h', kinds: ['Job'] };

describe('a rate that counts Jobs', () => {
  it("lets one Job go and defers the second; the pods' total of 0 does not stop it", async () => {
    await finishedJob(batch(), ns.name, 'first');
    await finishedJob(batch(), ns.name, 'second');
    policy = { maxNoOfPodsToEvictTotal: 0, kubeTidy: { brakes: { rates: [jobRate] }, objects: [jobs()] } };
    const started = Date.now();
    const s = await runObjectsPass(h.handle, { origin: 'sweep', dryRun: false, namespaces: [ns.name] });
    expect(s.results.map((r) => r.outcome).sort()).toEqual(['deferred', 'deleted']);
    const deferred = s.results.find((r) => r.outcome === 'deferred')!;
    expect(deferred.message).toContain('kubeTidy.brakes.rates[0]');
    expect(await liveJob(batch(), ns.name, deferred.decision.name), 'the deferred Job is still there').toBe(deferred.decision.uid);
    const deleted = s.results.find((r) => r.outcome === 'deleted')!;
    await waitFor('the admitted Job gone', async () => ((await liveJob(batch(), ns.name, deleted.decision.name)) === undefined ? true : undefined));

    await h.brakes.settle();
    const ledger = await storedLedger(ns.name);
    const now = Date.now();
    const jobCounter = `cluster|${HOUR}|${windowStart(started, HOUR)}|Job:`;
    // The same key the core computes for a Job subject, and a Pod's would be another.
    const meter: Meter = { scope: 'cluster', max: 1, windowMs: HOUR, name: 'kubeTidy.brakes.rates[0]', kinds: ['Job'] };
    expect(counterOf(meter, { kind: 'Job', namespace: ns.name }, started)).toBe(jobCounter);
    expect(spentAt(ledger, jobCounter, now)).toBe(1);
    const counters = [...Object.keys(ledger.counts), ...Object.values(ledger.holds).flatMap((x) => Object.keys(x.grants))];
    expect(counters.length).toBeGreaterThan(0);
    expect(
      counters.filter((c) => !c.endsWith('|Job:')),
      'nothing counted for pods',
    ).toEqual([]);
  }, 120_000);

  it("what Jobs spent is not the pods' budget, nor the reverse", async () => {
    // A Job rate and a pod rate of the same window and scope (their own window: counters apart
    // from the first test's): one counter each, keyed by kind.
    const TWO_HOURS = 2 * HOUR;
    const rates = [
      { max: 1, per: '2h', scope: 'namespace', kinds: ['Job'] },
      { max: 1, per: '2h', scope: 'namespace' },
    ];
    policy = { kubeTidy: { brakes: { rates }, objects: [jobs()] } };
    const admission = h.handle.admission({ dryRun: false });
    const answer = async (subject: { kind?: 'Job'; namespace: string }) => {
      const a = await admission.admit(subject);
      if ('ticket' in a) settleRemoval(a.ticket, { outcome: 'deleted' });
      return 'deferred' in a ? a.deferred.budget : 'admitted';
    };
    const job = { kind: 'Job' as const, namespace: ns.name };
    const pod = { namespace: ns.name };
    const start = windowStart(Date.now(), TWO_HOURS);
    expect(await answer(job), 'a Job').toBe('admitted');
    expect(await answer(pod), 'a pod, after a Job spent its rate').toBe('admitted');
    expect(await answer(job), 'a second Job: the Job rate is spent').toBe('kubeTidy.brakes.rates[0]');
    expect(await answer(pod), 'a second pod: the pod rate is spent').toBe('kubeTidy.brakes.rates[1]');
    await h.brakes.settle();
    const ledger = await storedLedger(ns.name);
    expect(spentAt(ledger, `namespace|${TWO_HOURS}|${start}|${ns.name}`, Date.now())).toBe(1);
    expect(spentAt(ledger, `namespace|${TWO_HOURS}|${start}|Job:${ns.name}`, Date.now())).toBe(1);
  }, 60_000);
});

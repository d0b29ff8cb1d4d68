// The brakes per kind, through the pass on the real control plane: a rate that counts Jobs
// ({max: 1, per: 1h, kinds: [Job]}) lets one finished Job go and defers the second, its unit
// counted in the ledger ConfigMap (kube-tidy-brakes) under a Job-keyed counter; the pods'
// maxNoOfPodsToEvictTotal of 0 does not stop a Job; and what Jobs spent is not the pods' budget
// (a pod rate of the same window still admits a pod), nor the reverse.
import { beforeAll, describe, expect, it } from 'vitest';
import { counterOf, windowStart, type Meter } from '../../../shared/brakes/core/meters.js';
import { runObjectsPass } from '../../../shared/objects/index.js';
import { waitFor } from '../../harness/index.js';
import { spentAt, storedLedger } from '../brakes/helpers.js';
import { finishedJob, liveJob } from './fixtures.js';
import { objectsSuite, type TestHandle } from './handle.js';

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
    // Same window and scope for both kinds: one counter each.
    policy = { kubeTidy: { brakes: { rates: [jobRate, { max: 1, per: '1h' }] }, objects: [jobs()] } };
    const admission = h.handle.admission({ dryRun: false });
    const pod = await admission.admit({ namespace: ns.name });
    expect('deferred' in pod ? pod.deferred.why : 'admitted', 'a pod, under a pod rate the Jobs did not spend').toBe('admitted');
    if ('ticket' in pod) admission.settle(pod.ticket, true);
    const job = await admission.admit({ kind: 'Job', namespace: ns.name });
    expect('deferred' in job ? job.deferred.budget : 'admitted', 'a Job, under the Job rate the first Job spent').toBe('kubeTidy.brakes.rates[0]');
    const another = await admission.admit({ namespace: ns.name });
    expect('deferred' in another ? another.deferred.budget : 'admitted', 'a second pod: the pod rate is spent by the pod').toBe('kubeTidy.brakes.rates[1]');
    await h.brakes.settle();
    const ledger = await storedLedger(ns.name);
    const start = windowStart(Date.now(), HOUR);
    expect(spentAt(ledger, `cluster|${HOUR}|${start}|`, Date.now())).toBe(1);
    expect(spentAt(ledger, `cluster|${HOUR}|${start}|Job:`, Date.now())).toBe(1);
  }, 60_000);
});

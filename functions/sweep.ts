import { actShard, Carry, cleanupParts, runPass, unplannedShard, type CleanupParts } from '../shared/cleanup/index.js';
import { dueOf, readDueConfig, type Due } from '../shared/cleanup/due/index.js';
import { MetadataTokens } from '../shared/gcp/metadata-token.js';
import type { Runtime } from '../shared/runtime/runtime.js';
import { PassReports } from '../shared/cleanup/reports/index.js';
import { objectsHandle, objectsStep, type ObjectsHandle } from '../shared/objects/index.js';
import { sumFailures } from '../shared/model/answer.js';
import { BadRequestError } from '../shared/serve/resolve.js';
import { defineTarget } from '../shared/serve/target.js';

/**
 * `sweep`: a full pass for a schedule (Knative PingSource, Cloud Scheduler, cron + curl).
 * It backs the events up: pods that existed before the bridge started, and changes during a
 * watch gap, produce no events, so only a periodic pass sees them. A pass cut short by
 * transient failures answers 503 with its summary: the scheduler's retry (or the next tick)
 * decides again from what is stored, and an alert on 5xx sees it.
 *
 * With a shard sink (SWEEP_SHARD_SINK or Knative's K_SINK; SWEEP_SHARD_TOPIC on GCP), a pass
 * that selected more than SWEEP_SHARD_SIZE pods acts on the first shard and posts the rest;
 * the broker (or Pub/Sub and Eventarc) brings each shard back to some sweep instance, which
 * takes it here (docs/scale.md), if it is one the planner stored within the hour: any other
 * (forged, altered, or replayed after its plan aged past the hour) is answered 422
 * (not 409, which Knative retries) and no pod is read or written.
 *
 * Where the order cannot change what is removed (no limits, retention, brakes or fan-out), the
 * pass writes each page's deletes while it reads the next, and a tick cut by its budget hands
 * what it did not start to this instance's next tick, which writes it without listing (docs/scale.md;
 * selection/early.ts, cleanup/io/carry.ts).
 *
 * A pass also lists in the due list (shared/cleanup/due) the pods it saw that time alone brings in
 * within DUE_HORIZON_SECONDS: podTerminated's tick then acts on each at its time, so a pod
 * that produced no event is not left to the next sweep (docs/time-and-events.md).
 */
interface SweepParts extends CleanupParts {
  due: Due;
  dueWithinMs: number;
  /** What a tick cut by its budget did not get to, for this instance's next tick (cleanup/io/carry.ts). */
  carry: Carry;
  /** The metadata server's token for publishing shards to Pub/Sub, kept across passes. */
  tokens: MetadataTokens;
  /** Cleanup beyond pods (shared/objects): its pass runs after the pods' when the policy has object rules. */
  objects: ObjectsHandle;
}

const sweepParts = (rt: Runtime): SweepParts => {
  const parts = cleanupParts(rt);
  const config = readDueConfig(rt.env);
  return {
    ...parts,
    due: dueOf(parts.handle, config),
    dueWithinMs: config.DUE_HORIZON_SECONDS * 1000,
    carry: new Carry(),
    tokens: new MetadataTokens(),
    objects: objectsHandle(rt),
  };
};

export const sweep = defineTarget({
  name: 'sweep',
  accepts: {
    ticks: true,
    shards: true,
    plain: 'tick',
    hint: 'sweep takes schedule ticks (dev.knative.sources.ping), its own shards or a plain POST; pod events go to podTerminated',
  },
  needs: { policy: true, cluster: 'at-start' },
  setup: sweepParts,
  async handle(input, { config, handle: h, due, dueWithinMs, carry, tokens, objects: oh }) {
    const { budgetMs, eventsPerPass } = h.settings;
    const started = h.now();
    const audit = config.SWEEP_MODE === 'audit';
    // An audit plans through the API server's dry run, whatever DRY_RUN says.
    const dryRun = audit || h.settings.dryRun;
    if (input.type === 'shard') {
      if (audit) throw new BadRequestError(422, 'this sweep audits (SWEEP_MODE=audit): it removes nothing, so it takes no shard');
      const unplanned = dryRun ? undefined : await unplannedShard(h.reader.core, config.SWEEP_PLAN_NAMESPACE, input.shard, h.now());
      if (unplanned) throw new BadRequestError(422, unplanned);
      const answer = await actShard(h, input.shard);
      h.log.info({ shard: answer.shard, outcomes: answer.outcomes, failures: answer.failures }, 'sweep shard done');
      return answer;
    }
    const fanOut = config.shardSink ? { sink: config.shardSink, size: config.SWEEP_SHARD_SIZE, planNamespace: config.SWEEP_PLAN_NAMESPACE, tokens } : undefined;
    const policy = h.policy();
    // Audit: no shards (another instance would act on them) and no due list (its tick would).
    const reports = audit ? new PassReports({ policy, mode: 'audit', protectedNamespaces: h.settings.protectedNamespaces }) : undefined;
    const summary = await runPass(h, {
      policy,
      origin: 'sweep',
      dryRun,
      budgetMs,
      eventsPerPass,
      // An audit's reports keep the policy's order (a report's cap keeps its first results): no early writes, nothing carried.
      ...(reports ? { observers: [reports] } : { dueWithinMs, early: true, carry, ...(fanOut ? { fanOut } : {}) }),
    });
    const { results, keptPods, failures: passFailures, dueSoon, ...counts } = summary;
    // The audit's product: a report not written is work left undone, by the same partial-failure rule.
    const written = reports ? await reports.write(h.writer().reportsClient, summary, h.now()) : undefined;
    // Then cleanup beyond pods, with the same policy and dry run (an audit only plans them too).
    // Within the sweep's own time budget (SWEEP_TIME_BUDGET_SECONDS), counted from its start: what is not started is the next sweep's.
    const objects = await objectsStep(oh, { origin: 'sweep', dryRun, rules: policy.objects ?? [], reports: 'if-served', until: started + budgetMs });
    const failures = sumFailures(passFailures, written?.failures, objects.failures);
    // Listing is a help, never the pass's failure: a pod not listed is the next sweep's, as before.
    const listed = await due.listSoon(dueSoon ?? []).catch((e: unknown) => {
      h.log.warn({ err: (e as Error)?.message ?? String(e) }, 'sweep: could not list the pods due soon in the due list');
      return undefined;
    });
    const objectCounts = objects.answer && { considered: objects.answer.considered, ...objects.answer.outcomes };
    h.log.info(
      {
        sweep: counts,
        failures,
        ...(listed ? { dueListed: listed } : {}),
        ...(written ? { reports: written } : {}),
        ...(objectCounts ? { objects: objectCounts } : {}),
      },
      'sweep done',
    );
    const complete = failures.transient + failures.refused === 0;
    return {
      outcome: complete ? (audit ? 'audited' : 'swept') : 'incomplete',
      ...(written ? { dryRun: true, reports: written } : {}),
      summary: { ...counts, ...(dueSoon?.length ? { dueSoon: dueSoon.length } : {}), ...(listed ? { dueListed: listed } : {}) },
      failures,
      results,
      kept: keptPods,
      ...(objects.answer ? { objects: { ...objects.answer, ...(objects.reports ? { reports: objects.reports } : {}) } } : {}),
    };
  },
});

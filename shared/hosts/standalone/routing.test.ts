// The standalone program's routing is each target's `accepts`, nothing else: every kind a
// running target takes goes to it, no other kind does, and the kinds the Knative Triggers
// (serverless.yml) deliver to a target are among them, so both deployments reach the same
// functions.
import { describe, expect, it } from 'vitest';
import { isTarget, TARGETS, type TargetName } from '../../../functions/index.js';
import { readDeclaration } from '../../../infra/declaration/declaration.js';
import { readMultiKueueConfig } from '../../multikueue/config.js';
import type { TargetSpec } from '../../serve/target.js';
import { routesOf, targetsFor, watchedKinds, type Routes } from './routing.js';
import type { Verb } from '../../cloudevents/index.js';
import { OBJECT_KINDS, ObjectRuleSchema } from '../../policy/objects-schema.js';

/** A policy whose object rules name every kind objectUpdated takes (its kinds are the rules' kinds). */
const everyObjectKind = { objects: OBJECT_KINDS.map((kind) => ObjectRuleSchema.parse({ name: kind.toLowerCase(), kind, minAge: '1h' })) };

/** The parts a target's `accepts` reads: jobDeleted's kinds are MULTIKUEUE_JOB_KINDS (default and a wider one), objectUpdated's its policy's. */
const partsFor = (env: NodeJS.ProcessEnv) => (spec: TargetSpec<unknown>) =>
  spec.name === 'objectUpdated'
    ? { handle: { policy: () => everyObjectKind } }
    : typeof spec.accepts.kinds === 'function'
      ? { kinds: readMultiKueueConfig(env).MULTIKUEUE_JOB_KINDS }
      : {};

/**
 * Watched in standalone, not by the Knative ApiServerSource: a resource the API server does not
 * serve (a cluster without Kueue) would stop the whole source, so serverless.yml leaves it out.
 */
const STANDALONE_ONLY = ['Workload'];

async function served(env: NodeJS.ProcessEnv = {}) {
  const specs = (await Promise.all((Object.keys(TARGETS) as TargetName[]).map((n) => TARGETS[n]()))) as TargetSpec<unknown>[];
  return specs.map((spec) => ({ spec, parts: partsFor(env)(spec) }));
}

/** kind -> targets, as sorted pairs. */
const pairs = (routes: Routes) => [...routes].flatMap(([kind, targets]) => targets.map((r) => `${kind} ${r.target}`)).sort();

describe('standalone routing, derived from accepts', () => {
  it.each([
    { sentence: 'with the default MULTIKUEUE_JOB_KINDS', env: {} },
    { sentence: 'with JobSet added to MULTIKUEUE_JOB_KINDS', env: { MULTIKUEUE_JOB_KINDS: 'batch/v1/Job,jobset.x-k8s.io/v1alpha2/JobSet' } },
  ])('covers exactly the kinds each target accepts, $sentence', async ({ env }) => {
    const all = await served(env);
    const expected = all.flatMap(({ spec, parts }) => {
      const kinds = typeof spec.accepts.kinds === 'function' ? spec.accepts.kinds(parts) : (spec.accepts.kinds ?? []);
      return kinds.map((k) => `${k} ${spec.name}`);
    });
    expect(pairs(routesOf(all))).toEqual(expected.sort());
    // Each running subset routes only to itself.
    for (const { spec } of all)
      expect(pairs(routesOf(all.filter((s) => s.spec.name === spec.name)))).toEqual(expected.filter((p) => p.endsWith(` ${spec.name}`)).sort());
  });

  it('a target that takes no object events gets none (ticks and bodies only)', async () => {
    const routes = routesOf(await served());
    for (const t of ['sweep', 'orphanSweep', 'defrag', 'invoke']) expect(pairs(routes).filter((p) => p.endsWith(` ${t}`))).toEqual([]);
  });

  it('delivers to each target exactly the watched events its Knative Triggers deliver (serverless.yml: verb and kind)', async () => {
    const routes = routesOf(await served());
    const declared = Object.entries(readDeclaration().functions).flatMap(([target, f]) =>
      f.events.flatMap((e) => ('cloudEvent' in e && isTarget(target) ? [`${e.cloudEvent.type.split('.').pop()} ${e.cloudEvent.kind} ${target}`] : [])),
    );
    expect(declared.length).toBeGreaterThan(0);
    const routed = watchedKinds(routes)
      .watched.filter((kind) => !STANDALONE_ONLY.includes(kind))
      .flatMap((kind) => (['add', 'update', 'delete'] as Verb[]).flatMap((verb) => targetsFor(routes, kind, verb).map((t) => `${verb} ${kind} ${t}`)));
    expect(routed.sort()).toEqual(declared.sort());
  });

  it("routes to objectUpdated only the kinds its policy's object rules name (a claims-only policy watches no Job or Workload for it)", async () => {
    const spec = await TARGETS.objectUpdated();
    const claimsOnly = { objects: [ObjectRuleSchema.parse({ name: 'claims', kind: 'PersistentVolumeClaim', minAge: '1h' })] };
    const routes = routesOf([{ spec, parts: { handle: { policy: () => claimsOnly } } } as never]);
    expect(pairs(routes)).toEqual(['PersistentVolumeClaim objectUpdated']);
    expect(pairs(routesOf([{ spec, parts: { handle: { policy: () => ({}) } } } as never]))).toEqual([]);
  });

  it('watches the routed kinds the bridge can watch; the others (Eviction) reach their target on ticks', async () => {
    expect(watchedKinds(routesOf(await served()))).toEqual({
      watched: ['Pod', 'Job', 'PersistentVolumeClaim', 'Workload'],
      unwatched: ['Eviction', 'EvictionRequest'],
    });
  });
});

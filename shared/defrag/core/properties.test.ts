import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { planDefrag } from './plan.js';
import type { DefragInput } from './types.js';
import type { Node, Pod, PodDisruptionBudget } from '../../model/objects.js';
import { node, pdb, wpod } from '../../../test/fixtures/defrag.js';
import { replay } from '../../../test/fixtures/defrag-replay.js';

// Random fragmented clusters (always a valid placement to start from), random budgets and
// limits: whatever the planner answers must replay cleanly, move only controlled pods, and
// never claim more freed nodes than requests and anti-affinity allow.

const arbApp = fc.record({
  replicas: fc.integer({ min: 1, max: 5 }),
  cpu: fc.integer({ min: 1, max: 3 }),
  anti: fc.constantFrom('none', 'hostname', 'zone'),
  budget: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
});

const arbCluster = fc.record({
  nodes: fc.array(
    fc.record({ cpu: fc.constantFrom(2, 4, 8), zone: fc.constantFrom('z1', 'z2'), cordoned: fc.integer({ min: 0, max: 5 }).map((x) => x === 0) }),
    { minLength: 2, maxLength: 7 },
  ),
  apps: fc.array(arbApp, { minLength: 1, maxLength: 4 }),
  bare: fc.integer({ min: 0, max: 2 }),
  daemonSet: fc.boolean(),
  seed: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
  limits: fc.record({
    perNode: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    total: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
  }),
});

type Cluster = typeof arbCluster extends fc.Arbitrary<infer T> ? T : never;

function conflicts(p: Pod, q: Pod, a: Node, b: Node): boolean {
  const check = (h: Pod, o: Pod) =>
    (h.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).some(
      (t) => a.metadata.labels?.[t.topologyKey] === b.metadata.labels?.[t.topologyKey] && t.labelSelector?.matchLabels?.app === o.metadata.labels?.app,
    );
  return check(p, q) || check(q, p);
}

/** Places pods one by one on a node chosen by the seed among those where they fit. */
function toInput(c: Cluster): DefragInput {
  const nodes = c.nodes.map((n, i) => node(`n${i}`, { cpu: String(n.cpu), labels: { zone: n.zone }, unschedulable: n.cordoned }));
  const pods: Pod[] = [];
  const pdbs: PodDisruptionBudget[] = [];
  const used = new Map<string, number>();
  let k = 0;
  const place = (b: ReturnType<typeof wpod>, cpu: number) => {
    const candidate = b.build();
    const fits = nodes.filter(
      (n) =>
        (used.get(n.metadata.name!) ?? 0) + cpu <= Number(n.status!.allocatable!.cpu) &&
        !pods.some((q) =>
          conflicts(
            candidate,
            q,
            n,
            nodes.find((m) => m.metadata.name === q.spec!.nodeName)!,
          ),
        ),
    );
    if (fits.length === 0) return;
    const n = fits[c.seed[k++ % c.seed.length]! % fits.length]!;
    used.set(n.metadata.name!, (used.get(n.metadata.name!) ?? 0) + cpu);
    pods.push(b.on(n.metadata.name!).build());
  };
  c.apps.forEach((a, i) => {
    if (a.budget !== undefined) pdbs.push(pdb(`app${i}`, `app${i}`, a.budget));
    for (let r = 0; r < a.replicas; r++) {
      const b = wpod(`app${i}-${r}`).app(`app${i}`).cpu(a.cpu);
      if (a.anti !== 'none') b.antiAffinity(undefined, a.anti === 'zone' ? 'zone' : 'kubernetes.io/hostname');
      place(b, a.cpu);
    }
  });
  for (let i = 0; i < c.bare; i++) place(wpod(`bare-${i}`).cpu(1).bare(), 1);
  if (c.daemonSet) nodes.forEach((n) => pods.push(wpod(`ds-${n.metadata.name}`).daemonSet().cpu(0).on(n.metadata.name!).build()));
  return { nodes, pods, pdbs };
}

function independentBound(input: DefragInput): number {
  const counting = input.pods.filter((p) => !(p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet'));
  const cpu = counting.reduce((s, p) => s + Number(p.spec!.containers![0]!.resources!.requests!.cpu), 0);
  const maxCap = Math.max(...input.nodes.map((n) => Number(n.status!.allocatable!.cpu)));
  const groups = new Map<string, number>();
  for (const p of counting) {
    const terms = p.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
    if (terms.some((t) => t.topologyKey === 'kubernetes.io/hostname')) groups.set(p.metadata.labels!.app!, (groups.get(p.metadata.labels!.app!) ?? 0) + 1);
  }
  return Math.max(Math.ceil(cpu / maxCap), ...groups.values(), 0);
}

describe('planDefrag properties', () => {
  test.prop([arbCluster], { numRuns: 300 })('every step replays validly: capacity, anti-affinity, budgets, limits, controllers', (c) => {
    const input = toInput(c);
    const plan = planDefrag(input, { limits: c.limits });
    expect(replay(input, plan, { limits: c.limits })).toEqual([]);
  });

  test.prop([arbCluster], { numRuns: 300 })('freed nodes never exceed occupied minus the lower bound', (c) => {
    const input = toInput(c);
    const plan = planDefrag(input);
    const occupied = new Set(input.pods.filter((p) => !(p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet')).map((p) => p.spec!.nodeName))
      .size;
    expect(plan.occupied).toBe(occupied);
    expect(plan.freed.length).toBeLessThanOrEqual(plan.maxFreeable);
    expect(plan.freed.length).toBeLessThanOrEqual(occupied - independentBound(input));
  });

  test.prop([arbCluster, fc.nat()], { numRuns: 100 })('the plan does not depend on list order', (c, rot) => {
    const input = toInput(c);
    const turn = <T>(xs: readonly T[]) => xs.map((_, i) => xs[(i + rot) % xs.length]!);
    expect(planDefrag({ nodes: turn(input.nodes), pods: turn(input.pods), pdbs: input.pdbs })).toEqual(planDefrag(input));
  });
});

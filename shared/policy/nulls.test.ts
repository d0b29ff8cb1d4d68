// A null anywhere the descheduler's Go types have a field loads as if the key were absent (Go's
// encoding/json: null leaves a field unset). The places come from the schemas themselves, so a
// field added later is covered without a new row: the envelope, a profile, a pluginConfig entry,
// every supported plugin's args and DefaultEvictor's, nested objects included.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DefaultEvictorArgsSchema } from '../evictor/schema.js';
import { STRATEGIES, STRATEGY_NAMES } from '../strategies/registry.js';
import { PolicyError } from './errors.js';
import { loadPolicy } from './load.js';
import { PolicyEnvelopeSchema } from './schema.js';

type Json = { properties?: Record<string, Json>; anyOf?: Json[]; type?: unknown };
type Obj = Record<string, unknown>;

/** Every field path of an object schema, nested objects' fields included (list items are not fields). */
function fieldPaths(s: Json, prefix: string[] = []): string[][] {
  return Object.entries(s.properties ?? {}).flatMap(([name, p]) => {
    const bare = p.anyOf?.find((x) => x.type === 'object' && x.properties) ?? p;
    return [[...prefix, name], ...(bare.properties ? fieldPaths(bare, [...prefix, name]) : [])];
  });
}
const pathsOf = (schema: z.ZodType) => fieldPaths(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json);

/** `base` with `path` set to null (`value`) or absent (`undefined`), the objects on the way made. */
function withField(base: Obj, path: string[], value: null | undefined): Obj {
  const copy = structuredClone(base);
  let at = copy;
  for (const k of path.slice(0, -1)) at = (at[k] ??= {}) as Obj;
  if (value === null) at[path.at(-1)!] = null;
  else delete at[path.at(-1)!];
  return copy;
}

/** What loading gives: the policy and warnings, or the problems. */
function outcome(raw: unknown): unknown {
  try {
    return loadPolicy(raw);
  } catch (e) {
    if (e instanceof PolicyError) return { issues: e.issues };
    throw e;
  }
}

const EXTENSION: Record<string, string> = Object.fromEntries(STRATEGY_NAMES.map((n) => [n, STRATEGIES[n].extensionPoint]));
/** A policy enabling `plugin` with `args` (and DefaultEvictor's `evictor`). */
const policyWith = (plugin: string, args: Obj = {}, evictor: Obj = {}): Obj => ({
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  profiles: [
    {
      name: 'p',
      pluginConfig: [
        { name: 'DefaultEvictor', args: evictor },
        { name: plugin, args },
      ],
      plugins: { [EXTENSION[plugin]!]: { enabled: [plugin] }, filter: { enabled: ['DefaultEvictor'] } },
    },
  ],
});

interface Row {
  sentence: string;
  raw: (v: null | undefined) => unknown;
}

const rows: Row[] = [
  ...pathsOf(PolicyEnvelopeSchema).map((path) => ({
    sentence: `the policy's ${path.join('.')}`,
    raw: (v: null | undefined) => withField(policyWith('RemoveFailedPods'), path, v),
  })),
  ...['name', 'pluginConfig', 'plugins'].map((field) => ({
    sentence: `a profile's ${field}`,
    raw: (v: null | undefined) => {
      const p = policyWith('RemoveFailedPods');
      (p.profiles as Obj[])[0] = withField((p.profiles as Obj[])[0]!, [field], v);
      return p;
    },
  })),
  ...['presort', 'sort', 'deschedule', 'balance', 'filter', 'preevictionfilter', 'preEvictionFilter'].flatMap((point) =>
    ['enabled', 'disabled'].map((list) => ({
      sentence: `a profile's plugins.${point}.${list}`,
      raw: (v: null | undefined) => {
        const p = policyWith('RemoveFailedPods');
        const profile = (p.profiles as Obj[])[0]!;
        profile.plugins = withField(profile.plugins as Obj, [point, list], v);
        return p;
      },
    })),
  ),
  ...STRATEGY_NAMES.flatMap((plugin) => [
    {
      sentence: `${plugin}'s pluginConfig args`,
      raw: (v: null | undefined) => {
        const p = policyWith(plugin);
        ((p.profiles as Obj[])[0]!.pluginConfig as Obj[])[1] = withField({ name: plugin, args: {} }, ['args'], v);
        return p;
      },
    },
    ...pathsOf(STRATEGIES[plugin].schema).map((path) => ({
      sentence: `${plugin} args.${path.join('.')}`,
      raw: (v: null | undefined) => policyWith(plugin, withField({}, path, v)),
    })),
  ]),
  ...pathsOf(DefaultEvictorArgsSchema).map((path) => ({
    sentence: `DefaultEvictor args.${path.join('.')}`,
    raw: (v: null | undefined) => policyWith('RemoveFailedPods', {}, withField({}, path, v)),
  })),
  {
    sentence: 'a label selector expression’s values (Exists takes none)',
    raw: (v: null | undefined) =>
      policyWith('PodLifeTime', {
        maxPodLifeTimeSeconds: 60,
        labelSelector: { matchExpressions: [withField({ key: 'a', operator: 'Exists' }, ['values'], v)] },
      }),
  },
];

describe('explicit nulls in a DeschedulerPolicy read as unset (as Go decodes them)', () => {
  it('covers every supported plugin and DefaultEvictor', () => {
    for (const name of [...STRATEGY_NAMES, 'DefaultEvictor']) expect(rows.some((r) => r.sentence.startsWith(name))).toBe(true);
    expect(rows.length).toBeGreaterThan(40);
  });

  it.each(rows)('$sentence: null loads as if absent', ({ raw }) => {
    expect(outcome(raw(null))).toEqual(outcome(raw(undefined)));
  });

  it('a policy of nulls in every place at once loads as the bare one, and says nothing about them', () => {
    const bare = policyWith('PodLifeTime', { maxPodLifeTimeSeconds: 60 });
    const nulls = policyWith(
      'PodLifeTime',
      { maxPodLifeTimeSeconds: 60, namespaces: null, labelSelector: null, states: null, includingInitContainers: null },
      { minPodAge: null, priorityThreshold: null, nodeSelector: null, labelSelector: null, podProtections: null, nodeFit: null },
    );
    Object.assign(nulls, { maxNoOfPodsToEvictTotal: null, nodeSelector: null, gracePeriodSeconds: null, metricsCollector: null, kubeTidy: null });
    expect(outcome(nulls)).toEqual(outcome(bare));
    expect((outcome(nulls) as { warnings: string[] }).warnings).toEqual([]);
  });

  it("kube-tidy's own section keeps its schema: a null inside kubeTidy is still refused by name", () => {
    const p = { ...policyWith('RemoveFailedPods'), kubeTidy: { brakes: null } };
    expect(outcome(p)).toMatchObject({ issues: [expect.objectContaining({ path: 'kubeTidy.brakes' })] });
  });
});

// docs/reference/policy.md: every field a policy file may hold, from the schemas that validate
// it: the DeschedulerPolicy envelope (shared/policy/schema.ts), each strategy's arguments (the
// registry, shared/strategies/registry.ts), DefaultEvictor's (shared/evictor/schema.ts) and
// kube-tidy's own section (shared/policy/brakes-schema.ts).
import { z } from 'zod';
import { DefaultEvictorArgsSchema } from '../../shared/evictor/schema.js';
import { KubeTidySectionSchema } from '../../shared/policy/brakes-schema.js';
import { TtlRulesSchema } from '../../shared/policy/ttl-schema.js';
import { MAX_POLICY_BYTES } from '../../shared/policy/load.js';
import { PolicyEnvelopeSchema } from '../../shared/policy/schema.js';
import { STRATEGIES } from '../../shared/strategies/registry.js';
import { join } from 'node:path';
import { fieldComments } from './comments.js';
import { code, generatedBanner, table } from './markdown.js';

type Json = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  properties?: Record<string, Json>;
  required?: string[];
  items?: Json;
  anyOf?: Json[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  additionalProperties?: Json | boolean;
};

const SAFE = 2 ** 53 - 1;

function typeOf(s: Json): string {
  if (s.enum) return s.enum.map((v) => code(String(v))).join(', ');
  if (s.const !== undefined) return code(String(s.const));
  if (s.anyOf) return s.anyOf.map(typeOf).join(' or ');
  if (Array.isArray(s.type)) return s.type.join(' or ');
  if (s.type === 'array') return `list of ${s.items ? typeOf(s.items) : 'any'}`;
  if (s.type === 'object' && !s.properties && typeof s.additionalProperties === 'object') return `map of ${typeOf(s.additionalProperties)}`;
  return s.type ?? 'any';
}

function limits(s: Json): string {
  const out: string[] = [];
  const low = s.minimum ?? (s.exclusiveMinimum !== undefined ? `>${s.exclusiveMinimum}` : undefined);
  const high = s.maximum !== undefined && Math.abs(s.maximum) < SAFE ? s.maximum : undefined;
  if ((low !== undefined && Math.abs(Number(s.minimum ?? 0)) < SAFE) || high !== undefined) out.push(`${low ?? ''}..${high ?? ''}`);
  if (s.minItems !== undefined || s.maxItems !== undefined) out.push(`${s.minItems ?? 0}..${s.maxItems ?? ''} items`);
  return out.join(', ');
}

/** One row per field, nested objects and lists of objects as dotted paths; the meaning is the comment where the field is declared. */
function rows(s: Json, prefix: string, meaning: Map<string, string>): string[][] {
  return Object.entries(s.properties ?? {}).flatMap(([name, p]) => {
    const path = `${prefix}${name}`;
    // A list Go may write as null (`enabled: null`) still lists its items' fields.
    const bare = p.anyOf?.length === 2 && p.anyOf.some((x) => x.type === 'null') ? p.anyOf.find((x) => x.type !== 'null')! : p;
    const inner = bare.properties ? bare : bare.items?.properties ? bare.items : undefined;
    const row = [
      code(path),
      typeOf(p),
      p.default !== undefined ? code(JSON.stringify(p.default)) : '',
      s.required?.includes(name) ? 'yes' : '',
      limits(bare),
      meaning.get(name) ?? '',
    ];
    return [row, ...(inner ? rows(inner, `${path}${inner === bare ? '.' : '[].'}`, meaning) : [])];
  });
}

const jsonOf = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Json;
const HEAD = ['field', 'type', 'default', 'required', 'bounds', 'meaning'];

/** Where the pieces every strategy shares are declared. */
const COMMON = ['shared/policy/common.ts', 'shared/policy/label-selector.ts'];

/** Each strategy's schema file, by the registry's name. */
const STRATEGY_FILES: Record<keyof typeof STRATEGIES, string> = {
  PodLifeTime: 'shared/strategies/pod-lifetime/schema.ts',
  RemoveFailedPods: 'shared/strategies/remove-failed-pods/schema.ts',
  RemovePodsHavingTooManyRestarts: 'shared/strategies/remove-pods-having-too-many-restarts/schema.ts',
  PodTTL: 'shared/strategies/pod-ttl/schema.ts',
};

function part(root: string, title: string, intro: string, schema: z.ZodType, prefix: string, files: string[]): string[] {
  const meaning = fieldComments([...files, ...COMMON].map((f) => join(root, f)));
  return [`## ${title}`, '', intro, '', table(HEAD, rows(jsonOf(schema), prefix, meaning)), ''];
}

export function policyPage(root: string): string {
  const strategies = Object.entries(STRATEGIES) as [keyof typeof STRATEGIES, (typeof STRATEGIES)[keyof typeof STRATEGIES]][];
  return [
    generatedBanner('the policy schemas (shared/policy/, shared/strategies/, shared/evictor/) and the comments where each field is declared'),
    '',
    '# Policy fields',
    '',
    "Every field kube-tidy reads in a `descheduler/v1alpha2` DeschedulerPolicy, with its type, default and bounds as the schemas validate them (`kube-tidy policy check` prints a policy with every default filled). More on what the fields do: [writing a policy](../policy.md), [brakes](../brakes.md), [retention](../retention.md); the descheduler's fields mean what they mean in the descheduler v0.36, apart from the [differences](../differences-from-descheduler.md). Unknown fields are refused, naming them.",
    '',
    `A policy is at most ${MAX_POLICY_BYTES / (1 << 20)} MiB of UTF-8 (a ConfigMap's limit; no real policy nears it), wherever it comes from: a file (\`--policy\`, \`--policy-config-file\`, \`POLICY_FILE\`) is read no further than that, whatever its size says (\`/dev/zero\`, a FIFO), and refused (the CLI exits 2); a ConfigMap key or an \`invoke\` body's policy larger than that is refused.`,
    '',
    "An explicit `null` (or a key with nothing after it) reads as unset wherever the descheduler's types have a field, as Go decodes it: the envelope, profiles, every plugin's `args` and DefaultEvictor's. `kubeTidy` is kube-tidy's own: a null inside it is refused by name.",
    '',
    ...part(
      root,
      'The policy',
      "The top level. `kubeTidy` is kube-tidy's own section ([below](#kubetidy)); `profiles[].pluginConfig[].args` are the plugin's arguments, below.",
      PolicyEnvelopeSchema,
      '',
      ['shared/policy/schema.ts'],
    ),
    ...strategies.flatMap(([name, s]) =>
      part(root, `${name} args`, `\`pluginConfig: [{name: ${name}, args: ...}]\`, enabled under \`plugins.${s.extensionPoint}\`.`, s.schema, 'args.', [
        STRATEGY_FILES[name],
      ]),
    ),
    ...part(
      root,
      'DefaultEvictor args',
      '`pluginConfig: [{name: DefaultEvictor, args: ...}]`: which pods any strategy may remove.',
      DefaultEvictorArgsSchema,
      'args.',
      ['shared/evictor/schema.ts'],
    ),
    ...part(
      root,
      'kubeTidy',
      "kube-tidy's own top-level section (the descheduler ignores it): [brakes](../brakes.md), [retention](../retention.md) and [cleanup beyond pods](../objects.md).",
      KubeTidySectionSchema.omit({ ttl: true }),
      'kubeTidy.',
      ['shared/policy/brakes-schema.ts', 'shared/policy/retention.ts', 'shared/policy/objects-schema.ts'],
    ),
    // Its own part: its fields' names (kinds, kind) are the brakes' and the objects rules' too, and a comment is found by name.
    ...part(
      root,
      'kubeTidy.ttl',
      "TTL on any kind ([the page](../ttl.md)): Kyverno's and kube-janitor's TTL values honoured on the kinds a rule names.",
      z.strictObject({ ttl: TtlRulesSchema.default([]) }),
      'kubeTidy.',
      ['shared/policy/ttl-schema.ts'],
    ),
  ].join('\n');
}

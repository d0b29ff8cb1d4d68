// docs/reference/policy.md: every field a policy file may hold, from the schemas that validate
// it: the DeschedulerPolicy envelope (shared/policy/schema.ts), each strategy's arguments (the
// registry, shared/strategies/registry.ts), DefaultEvictor's (shared/evictor/schema.ts) and
// kube-tidy's own section (shared/policy/brakes-schema.ts).
import { z } from 'zod';
import { DefaultEvictorArgsSchema } from '../../shared/evictor/schema.js';
import { KubeTidySectionSchema } from '../../shared/policy/brakes-schema.js';
import { PolicyEnvelopeSchema } from '../../shared/policy/schema.js';
import { STRATEGIES } from '../../shared/strategies/registry.js';
import { code, generatedBanner, table } from './markdown.js';

type Json = {
  type?: string;
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

/** One row per field, nested objects and lists of objects as dotted paths. */
function rows(s: Json, prefix: string): string[][] {
  return Object.entries(s.properties ?? {}).flatMap(([name, p]) => {
    const path = `${prefix}${name}`;
    const inner = p.properties ? p : p.items?.properties ? p.items : undefined;
    const row = [code(path), typeOf(p), p.default !== undefined ? code(JSON.stringify(p.default)) : '', s.required?.includes(name) ? 'yes' : '', limits(p)];
    return [row, ...(inner ? rows(inner, `${path}${inner === p ? '.' : '[].'}`) : [])];
  });
}

const jsonOf = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Json;
const HEAD = ['field', 'type', 'default', 'required', 'bounds'];

function part(title: string, intro: string, schema: z.ZodType, prefix: string): string[] {
  return [`## ${title}`, '', intro, '', table(HEAD, rows(jsonOf(schema), prefix)), ''];
}

export function policyPage(): string {
  return [
    generatedBanner('the policy schemas (shared/policy/, shared/strategies/, shared/evictor/)'),
    '',
    '# Policy fields',
    '',
    'Every field kube-tidy reads in a `descheduler/v1alpha2` DeschedulerPolicy, with its type, default and bounds as the schemas validate them (`kube-tidy policy check` prints a policy with every default filled). What each field means: [writing a policy](../policy.md), [brakes](../brakes.md), [retention](../retention.md). Unknown fields are refused, naming them.',
    '',
    ...part(
      'The policy',
      "The top level. `kubeTidy` is kube-tidy's own section ([below](#kubetidy)); `profiles[].pluginConfig[].args` are the plugin's arguments, below.",
      PolicyEnvelopeSchema,
      '',
    ),
    ...Object.entries(STRATEGIES).flatMap(([name, s]) =>
      part(`${name} args`, `\`pluginConfig: [{name: ${name}, args: ...}]\`, enabled under \`plugins.${s.extensionPoint}\`.`, s.schema, 'args.'),
    ),
    ...part(
      'DefaultEvictor args',
      '`pluginConfig: [{name: DefaultEvictor, args: ...}]`: which pods any strategy may remove.',
      DefaultEvictorArgsSchema,
      'args.',
    ),
    ...part(
      'kubeTidy',
      "kube-tidy's own top-level section (the descheduler ignores it): [brakes](../brakes.md) and [retention](../retention.md).",
      KubeTidySectionSchema,
      'kubeTidy.',
    ),
  ].join('\n');
}

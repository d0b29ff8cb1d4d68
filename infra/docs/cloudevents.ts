// docs/reference/cloudevents.md: every CloudEvent type kube-tidy sends (shared/notify/types.ts)
// and the fields of its data, from the JSON Schemas in schemas/events/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_TYPES, POD_OUTCOMES, TYPES, podType, type DataType } from '../../shared/notify/types.js';
import { code, generatedBanner, table } from './markdown.js';

type Schema = {
  title?: string;
  description?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

/** Which data type each event type carries. */
const DATA_OF: Record<keyof typeof TYPES, DataType> = {
  podsDecided: 'pods-decided',
  cascade: 'multikueue-cascade',
  orphan: 'multikueue-orphan',
  evacuation: 'evacuation-change',
  defrag: 'defrag-step',
  passCompleted: 'pass-summary',
  objectDecided: 'object-decision',
};

const typeOf = (s: Schema): string =>
  s.enum
    ? s.enum.map((v) => code(String(v))).join(', ')
    : s.const !== undefined
      ? code(String(s.const))
      : s.type === 'array' && s.items
        ? `array of ${typeOf(s.items)}`
        : (s.anyOf ?? s.oneOf)
          ? (s.anyOf ?? s.oneOf)!.map(typeOf).join(' or ')
          : Array.isArray(s.type)
            ? s.type.join(' or ')
            : (s.type ?? 'any');

/** One row per field, nested objects (and arrays of objects) as dotted paths. */
function fields(s: Schema, prefix = ''): string[][] {
  return Object.entries(s.properties ?? {}).flatMap(([name, p]) => {
    const path = `${prefix}${name}`;
    const inner = p.properties ? p : p.items?.properties ? p.items : undefined;
    const row = [code(path), typeOf(p), s.required?.includes(name) ? 'yes' : '', p.description ?? ''];
    return [row, ...(inner ? fields(inner, `${path}${inner === p ? '.' : '[].'}`) : [])];
  });
}

export function cloudEventsPage(root: string): string {
  const schemaOf = (t: DataType) => JSON.parse(readFileSync(join(root, 'schemas/events', `${t}.v1.json`), 'utf8')) as Schema;
  const types = [
    ...POD_OUTCOMES.map((o) => [code(podType(o)), `[pod-decision](#pod-decision)`]),
    ...Object.entries(TYPES).map(([k, t]) => [code(t), `[${DATA_OF[k as keyof typeof TYPES]}](#${DATA_OF[k as keyof typeof TYPES]})`]),
  ];
  return [
    generatedBanner('shared/notify/types.ts and the JSON Schemas in schemas/events/'),
    '',
    '# CloudEvent types',
    '',
    "Every CloudEvent kube-tidy sends about its own decisions, and the fields of its data (the event's `dataschema` names the schema file). Where they go, how often, and routing them with a Trigger: [observing](../observing.md#decisions-as-cloudevents).",
    '',
    table(['type', 'data'], types),
    '',
    ...DATA_TYPES.flatMap((t) => {
      const s = schemaOf(t);
      return [
        `## ${t}`,
        '',
        `${s.title ?? t}: ${s.description ?? ''} Schema: [schemas/events/${t}.v1.json](../../schemas/events/${t}.v1.json).`,
        '',
        table(['field', 'type', 'required', 'meaning'], fields(s)),
        '',
      ];
    }),
  ].join('\n');
}

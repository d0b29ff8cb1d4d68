// docs/reference/environment.md: every environment variable a target or host reads, from the
// zod schemas that read it (name, default, accepted values), the comment where it is declared
// (meaning), and which targets read it. Variables the code reads outside any schema are listed
// after, found by scanning the code, with the files that read them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CleanupEnv, PassEnv } from '../../shared/cleanup/config.js';
import { DefragEnv } from '../../shared/defrag/config.js';
import { DueEnv } from '../../shared/cleanup/due/config.js';
import { TrustedSendersEnv } from '../../shared/cleanup/trusted-senders.js';
import { EvacuationEnv } from '../../shared/evacuation/config.js';
import { StandaloneEnv } from '../../shared/hosts/standalone/config.js';
import { MultiKueueEnv } from '../../shared/multikueue/config.js';
import { RuntimeEnv } from '../../shared/runtime/config.js';
import { SenderAuthEnv } from '../../shared/serve/http/auth/config.js';
import { declaredComments } from './comments.js';
import { code, generatedBanner, table } from './markdown.js';

const EVERY_TARGET =
  'every target: podTerminated, sweep, invoke, jobDeleted, orphanSweep, evacuation, defrag, objectUpdated (and the standalone program, which runs them)';

/** Who reads what: one schema each, the file that declares it, and the targets whose setup reads it. */
export const ENV_SOURCES: { title: string; file: string; schema: z.ZodType; readBy: string }[] = [
  { title: 'Every process', file: 'shared/runtime/config.ts', schema: RuntimeEnv, readBy: EVERY_TARGET },
  {
    title: 'Sender authentication',
    file: 'shared/serve/http/auth/config.ts',
    schema: SenderAuthEnv,
    readBy: 'the production server (every target it serves) and invoke',
  },
  { title: 'A pass', file: 'shared/cleanup/config.ts', schema: PassEnv, readBy: 'podTerminated, objectUpdated, sweep, invoke, evacuation' },
  { title: 'Pod cleanup', file: 'shared/cleanup/config.ts', schema: CleanupEnv, readBy: 'podTerminated, sweep, invoke' },
  { title: 'Events as the read', file: 'shared/cleanup/trusted-senders.ts', schema: TrustedSendersEnv, readBy: 'podTerminated' },
  {
    title: 'Time: timers and the due list',
    file: 'shared/cleanup/due/config.ts',
    schema: DueEnv,
    readBy: 'podTerminated, sweep, objectUpdated (every one, for its own lists, kube-tidy-objects-due-*)',
  },
  { title: 'Evacuation', file: 'shared/evacuation/config.ts', schema: EvacuationEnv, readBy: 'evacuation' },
  { title: 'Defragmentation', file: 'shared/defrag/config.ts', schema: DefragEnv, readBy: 'defrag' },
  { title: 'MultiKueue', file: 'shared/multikueue/config.ts', schema: MultiKueueEnv, readBy: 'jobDeleted, orphanSweep' },
  {
    title: 'The standalone program',
    file: 'shared/hosts/standalone/config.ts',
    schema: StandaloneEnv,
    readBy: "the standalone program (the chart's mode=standalone)",
  },
];

/** Files whose comments may describe a variable a schema spreads in from elsewhere (notify's EventsEnv). */
const COMMENT_FILES = ['shared/notify/config.ts'];

/** Where the code is scanned for variables read outside the schemas. */
const SCANNED = ['shared', 'functions', 'infra/bundle'];

type Json = {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  anyOf?: Json[];
};

type Def = { type: string; defaultValue?: unknown; in?: z.ZodType; innerType?: z.ZodType };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The default a variable gets when unset, as the environment would spell it (before any transform). */
export function defaultOf(s: z.ZodType): unknown {
  const def = defOf(s);
  if (def.type === 'default' || def.type === 'prefault') return def.defaultValue;
  if (def.type === 'pipe' && def.in) return defaultOf(def.in);
  if ((def.type === 'optional' || def.type === 'nullable' || def.type === 'readonly') && def.innerType) return defaultOf(def.innerType);
  return undefined;
}

const valueOf = (v: unknown): string => (Array.isArray(v) ? v.join(',') : typeof v === 'string' ? v : JSON.stringify(v));

/** What a variable accepts, as its input schema says. */
export function accepts(p: Json): string {
  if (p.enum) return p.enum.map((v) => code(String(v))).join(', ');
  if (p.anyOf) return p.anyOf.map(accepts).filter(Boolean).join(' or ');
  if (p.const !== undefined) return code(String(p.const));
  const low = p.minimum ?? (p.exclusiveMinimum !== undefined ? `>${p.exclusiveMinimum}` : undefined);
  const bounds = low !== undefined || p.maximum !== undefined ? ` ${low ?? ''}..${p.maximum !== undefined && p.maximum < 1e15 ? p.maximum : ''}` : '';
  return p.type ? `${p.type}${bounds}` : 'text';
}

function section(s: (typeof ENV_SOURCES)[number], comments: Map<string, string>[], skip: Set<string>): string {
  const json = z.toJSONSchema(s.schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, Json>; required?: string[] };
  const shape = (s.schema as z.ZodObject).shape as Record<string, z.ZodType>;
  const rows = Object.entries(json.properties ?? {})
    .filter(([name]) => !skip.has(name))
    .map(([name, p]) => {
      const meaning = comments.map((c) => c.get(name)).find(Boolean) ?? '';
      const d = defaultOf(shape[name]!);
      const def = d !== undefined ? code(valueOf(d)) : json.required?.includes(name) ? '(required)' : '(unset)';
      return [code(name), def, accepts(p), meaning];
    });
  return [
    `## ${s.title}`,
    '',
    `Read by: ${s.readBy}. Declared in [${s.file}](../../${s.file}).`,
    '',
    table(['variable', 'default', 'accepts', 'meaning'], rows),
  ].join('\n');
}

/** The variables of a schema, in declaration order. */
export const namesOf = (schema: z.ZodType): string[] => Object.keys((schema as z.ZodObject).shape);

/** Every variable with no comment where it is declared (the reference would have no meaning for it). */
export function undescribed(root: string): string[] {
  const extra = COMMENT_FILES.map((f) => declaredComments(join(root, f)));
  return ENV_SOURCES.flatMap((s) => {
    const own = [declaredComments(join(root, s.file)), ...extra];
    return namesOf(s.schema).filter((n) => !own.some((c) => c.has(n)));
  });
}

/** Names every schema declares. */
export function declaredNames(): Set<string> {
  const names = new Set<string>();
  for (const s of ENV_SOURCES) {
    const json = z.toJSONSchema(s.schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
    for (const n of Object.keys(json.properties ?? {})) names.add(n);
  }
  return names;
}

/** Variables the code reads directly (process.env.X, env.X, env['X']) -> the files that read them. */
export function directReads(root: string, files: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of files) {
    for (const m of readFileSync(join(root, f), 'utf8').matchAll(/\benv(?:\.([A-Z][A-Z0-9_]+)|\[['"]([A-Z][A-Z0-9_]+)['"]\])/g)) {
      const name = (m[1] ?? m[2])!;
      const list = out.get(name) ?? [];
      if (!list.includes(f)) out.set(name, [...list, f]);
    }
  }
  return out;
}

export { SCANNED as ENV_SCANNED_DIRS };

export function environmentPage(root: string, scannedFiles: string[]): string {
  const own = (file: string) => declaredComments(join(root, file));
  const extra = COMMENT_FILES.map(own);
  // A schema that extends another of its file (pod cleanup extends a pass) lists only what it adds.
  const sections = ENV_SOURCES.map((s, i) => {
    const earlier = new Set(
      ENV_SOURCES.slice(0, i)
        .filter((e) => e.file === s.file)
        .flatMap((e) => namesOf(e.schema)),
    );
    return section(s, [own(s.file), ...extra], earlier);
  });
  const declared = declaredNames();
  const direct = [...directReads(root, scannedFiles)].filter(([n]) => !declared.has(n)).sort(([a], [b]) => a.localeCompare(b));
  const index = [...declared]
    .sort()
    .map((n) => code(n))
    .join(', ');
  return [
    generatedBanner('the configuration schemas (shared/*/config.ts) and the comments where each variable is declared'),
    '',
    '# Environment variables',
    '',
    'Every variable a function target or the standalone program reads, by the part of kube-tidy that reads it. A bad value stops the process at start with the variable named (every problem at once). Defaults are the schema\'s: where a meaning says "default KUBE_TIDY_NAMESPACE", that variable comes first. How the manifests and the chart set them: [deploying](../deploying.md).',
    '',
    `All of them: ${index}.`,
    '',
    ...sections.flatMap((s) => [s, '']),
    '## Read outside the schemas',
    '',
    'Read directly by the code (not validated at start); the files say what for.',
    '',
    table(
      ['variable', 'read in'],
      direct.map(([n, files]) => [code(n), files.map((f) => `[${f}](../../${f})`).join(', ')]),
    ),
    '',
  ].join('\n');
}

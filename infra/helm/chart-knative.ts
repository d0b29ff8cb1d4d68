// The chart's knative-mode templates, rendered from serverless.yml by the same code that
// writes infra/knative/manifests (render.ts), so the chart cannot drift from the manifests:
// every value a user may set is rendered as a sentinel, and each sentinel then becomes the
// Helm expression that reads it. Sender authentication adds objects and fields; the
// declaration is rendered with it on and off, and what only the "on" render has is wrapped
// in an `if`, as are the objects in kueueNamespace (values.multiKueue). test/integration/helm/ renders the chart with Helm and compares it with
// renderKnative object for object.
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { type Declaration } from '../declaration/declaration.js';
import { POLICY_FILE, renderKnative } from '../knative/render.js';

type Obj = Record<string, unknown>;

/** Sentinels for values that are part of a longer string (names, audiences, paths). */
const INLINE: Record<string, string> = {
  '@@ns@@': '{{ include "kube-tidy.namespace" . }}',
  '@@kueue@@': '{{ .Values.kueueNamespace }}',
  '@@prefix@@': '{{ include "kube-tidy.prefix" . }}',
};

/** Sentinels for whole values: replaced, quotes and all, by the value as JSON (valid YAML). */
const json = (key: string) => `@@json:${key}@@`;
/** A watched kind's label selector, values.selectors.<Kind>: its key is rendered only when it is set. */
const selectorOf = (kind: string) => `@@selector:${kind}@@`;

const WHOLE: Record<string, string> = {
  image: 'include "kube-tidy.image" .',
  dryRun: '.Values.dryRun | toString',
  logLevel: '.Values.logLevel',
  policy: '.Values.policy',
  namespaceSelector: '.Values.selectors.namespaces',
  eventsSink: 'include "kube-tidy.eventsSink" .',
};

function sentinelDeclaration(decl: Declaration, senderAuth: 'kubernetes' | 'none'): { decl: Declaration; whole: Record<string, string> } {
  const d = structuredClone(decl);
  const whole = { ...WHOLE };
  d.provider.senderAuth.knative = senderAuth;
  d.provider.environment.DRY_RUN = json('dryRun');
  d.provider.environment.LOG_LEVEL = json('logLevel');
  // render.ts's default (the broker) unless serverless.yml sets one: values.events decides in the chart.
  d.provider.environment.EVENTS_SINK = json('eventsSink');
  // The policy ConfigMap's namespace follows the rendered namespace (rbac.ts policyConfigMap).
  const src = d.provider.sources.apiserver;
  if (src.namespaceSelector) src.namespaceSelector = json('namespaceSelector') as never;
  // Every watched kind takes values.selectors.<Kind>, declared or not (the standalone watch reads
  // them all the same way): a kind without one, Jobs by default, is watched whole.
  for (const r of src.resources) r.selector = selectorOf(r.kind) as never;
  for (const [target, f] of Object.entries(d.functions)) {
    for (const e of f.events) {
      if (!('schedule' in e)) continue;
      whole[`schedule:${target}`] = `index .Values.schedules "${target}"`;
      e.schedule.cron = json(`schedule:${target}`);
    }
  }
  return { decl: d, whole };
}

function render(decl: Declaration, senderAuth: 'kubernetes' | 'none'): { files: Record<string, Obj[]>; whole: Record<string, string> } {
  const s = sentinelDeclaration(decl, senderAuth);
  const files = renderKnative(s.decl, { namespace: '@@ns@@', kueueNamespace: '@@kueue@@', prefix: '@@prefix@@', image: json('image') });
  for (const o of files['10-policy.yaml']!) (o as { data: Record<string, string> }).data['policy.yaml'] = json('policy');
  return { files, whole: s.whole };
}

const docId = (o: Obj) => `${o.kind}/${(o.metadata as Obj).namespace ?? ''}/${(o.metadata as Obj).name}`;
const IF_AUTH = '{{- if eq .Values.senderAuth "kubernetes" }}';
const END = '{{- end }}';
/** values.multiKueue (_helpers.tpl "kube-tidy.multiKueue"): auto, true or false. */
const IF_MULTIKUEUE = '{{- if include "kube-tidy.multiKueue" . }}';

/**
 * The lines of `more` with those missing from `less` wrapped in the sender-auth `if`. `less`
 * must be a subsequence of `more` (sender authentication only adds): anything else throws.
 */
function wrapAdded(more: string[], less: string[], where: string): string[] {
  const out: string[] = [];
  let j = 0;
  let open = false;
  for (const line of more) {
    const same = j < less.length && less[j] === line;
    if (same) j++;
    if (!same && !open) out.push(IF_AUTH);
    if (same && open) out.push(END);
    open = !same;
    out.push(line);
  }
  if (open) out.push(END);
  if (j !== less.length) throw new Error(`${where}: turning sender authentication off does more than remove lines; template it by hand`);
  return out;
}

function substitute(text: string, whole: Record<string, string>): string {
  // `selector: <a kind's>` becomes a `with`: no key at all when values.selectors has none for the kind (or an empty one).
  let out = text.replace(
    /^( *)selector: (["']?)@@selector:([A-Za-z]+)@@\2$/gm,
    (_line, indent: string, _q, kind: string) => `{{- with index .Values.selectors "${kind}" }}\n${indent}selector: {{ toJson . }}\n{{- end }}`,
  );
  for (const [key, expr] of Object.entries(whole)) {
    const s = json(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`(["']?)${s}\\1`, 'g'), `{{ ${expr} | toJson }}`);
  }
  for (const [s, expr] of Object.entries(INLINE)) out = out.replaceAll(s, expr);
  if (/@@/.test(out)) throw new Error(`a sentinel was left unreplaced: ${/.*@@.*/.exec(out)?.[0]}`);
  return out;
}

export const TEMPLATE_HEADER = '# GENERATED from serverless.yml by `npm run infra:generate` (infra/helm/chart-knative.ts). Do not edit.\n';

/** templates/knative/<file> -> text, for every file of infra/knative/manifests. */
export function knativeTemplates(decl: Declaration): Record<string, string> {
  const on = render(decl, 'kubernetes');
  const off = render(decl, 'none');
  const out: Record<string, string> = {};
  for (const [file, objects] of Object.entries(on.files)) {
    const offDocs = new Map(off.files[file]!.map((o) => [docId(o), o]));
    const docs = objects.map((o) => {
      const more = stringify(o, { lineWidth: 0 }).trimEnd().split('\n');
      const other = offDocs.get(docId(o));
      const lines = other ? wrapAdded(more, stringify(other, { lineWidth: 0 }).trimEnd().split('\n'), `${file} ${docId(o)}`) : [IF_AUTH, ...more, END];
      // Objects in kueueNamespace only with MultiKueue: on a cluster without Kueue it does not exist.
      return ((o.metadata as Obj).namespace === '@@kueue@@' ? [IF_MULTIKUEUE, ...lines, END] : lines).join('\n');
    });
    // The Namespace is Helm's (--create-namespace) unless asked for, as the manifests have it.
    const guard = file === '00-namespace.yaml' ? '{{- if and (eq .Values.mode "knative") .Values.createNamespace }}' : '{{- if eq .Values.mode "knative" }}';
    const body = docs.map((d) => `---\n${d}`).join('\n');
    out[file] = `${TEMPLATE_HEADER}${guard}\n${substitute(body, on.whole)}\n{{- end }}\n`;
  }
  return out;
}

/** The defaults values.yaml carries for what the templates above read. */
export function knativeDefaults(decl: Declaration): {
  image: string;
  dryRun: boolean;
  logLevel: string;
  policy: string;
  schedules: Record<string, string>;
  selectors: Record<string, unknown>;
} {
  const schedules: Record<string, string> = {};
  for (const [target, f] of Object.entries(decl.functions)) for (const e of f.events) if ('schedule' in e) schedules[target] = e.schedule.cron;
  const src = decl.provider.sources.apiserver;
  const selectors: Record<string, unknown> = { namespaces: src.namespaceSelector ?? {} };
  for (const r of src.resources) if (r.selector) selectors[r.kind] = r.selector;
  return {
    image: decl.provider.image,
    dryRun: decl.provider.environment.DRY_RUN === 'true',
    logLevel: decl.provider.environment.LOG_LEVEL ?? 'info',
    policy: readFileSync(POLICY_FILE, 'utf8'),
    schedules,
    selectors,
  };
}

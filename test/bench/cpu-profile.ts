// Where a sweep process's CPU goes (issue 35): the V8 profile `--cpu-prof` writes when the
// process exits, its samples mapped back to sources through the bundle's source maps (the
// bundle is minified: its own names say nothing) and summed by what a removal does. Each
// sample is charged to the first frame up its stack that belongs to an area, so a model
// decoded inside a fetch callback counts as decoding, not as fetch.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SourceMapConsumer } from 'source-map-js';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: Frame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Areas, most specific first: a source path (node_modules/... or shared/...) -> its area. */
const AREAS: [RegExp, string][] = [
  [/@kubernetes\/client-node\/.*(ObjectSerializer|gen\/models)/, 'client-node: models decoded and encoded (ObjectSerializer)'],
  [/@kubernetes\/client-node\//, 'client-node: request layers'],
  [/node_modules\/(node-fetch|form-data|whatwg-url|abort-controller|isomorphic-ws)\//, 'fetch layer under client-node'],
  [/node_modules\/(pino|sonic-boom|thread-stream|@pinojs)\//, 'logging'],
  [/node_modules\/@opentelemetry\/|shared\/metrics\//, 'metrics'],
  [/shared\/kube\/(writer|write-refusals|errors|delete-as-seen|evict-only)/, 'kube-tidy: the writer'],
  // The direct requests (issue 35): building and sending them, and JSON.parse of LIST pages (a builtin, so charged here).
  [/shared\/kube\/(direct|direct-pods|request-lifecycle)\.ts/, 'kube-tidy: direct requests (pod DELETE, LIST pages, GET; JSON parse)'],
  [/shared\/kube\//, 'kube-tidy: clients (throttle, tally, pager, reads)'],
  [/shared\/(selection|strategies|policy|evictor|model)\//, 'kube-tidy: decide'],
  [/shared\/brakes\//, 'kube-tidy: brakes'],
  [/shared\/cleanup\//, 'kube-tidy: the pass (stages, observers)'],
  [/shared\/notify\//, 'kube-tidy: outbox'],
  [/shared\/|functions\//, 'kube-tidy: other'],
];
const IDLE = new Set(['(idle)', '(program)']);

function readProfile(dir: string): Profile {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${dir} (did the process exit cleanly?)`);
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
}

/** The one .cpuprofile in `dir`, by area: seconds, busy seconds (not idle) and per-area seconds. */
export function cpuBreakdown(dir: string, bundleFile: string): { sampledSeconds: number; busySeconds: number; areas: Record<string, number> } {
  const profile = readProfile(dir);
  const sourceOf = sourcesOf(dirname(bundleFile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const areaOfNode = new Map<number, string>();
  const areaOf = (id: number): string => {
    const known = areaOfNode.get(id);
    if (known) return known;
    const own = byId.get(id)!.callFrame;
    let area = own.functionName === '(garbage collector)' ? 'garbage collector' : IDLE.has(own.functionName) ? 'idle' : undefined;
    for (let cur: number | undefined = id; !area && cur !== undefined; cur = parent.get(cur)) {
      const source = sourceOf(byId.get(cur)!.callFrame);
      area = source === undefined ? undefined : AREAS.find(([re]) => re.test(source))?.[1];
    }
    area ??= 'node internals (http, net, streams, TLS)';
    areaOfNode.set(id, area);
    return area;
  };
  const areas: Record<string, number> = {};
  profile.samples.forEach((id, i) => {
    const a = areaOf(id);
    areas[a] = (areas[a] ?? 0) + (profile.timeDeltas[i] ?? 0) / 1e6;
  });
  const sampled = Object.values(areas).reduce((a, b) => a + b, 0);
  const rounded = Object.fromEntries(
    Object.entries(areas)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => [k, Math.round(v * 100) / 100]),
  );
  return { sampledSeconds: Math.round(sampled * 10) / 10, busySeconds: Math.round((sampled - (areas.idle ?? 0)) * 10) / 10, areas: rounded };
}

/**
 * The `n` functions with the most self time in the one .cpuprofile in `dir` (idle left out),
 * as "name source:line" with seconds: where a profile's CPU goes, below the areas.
 */
export function topSelf(dir: string, bundleFile: string, n: number): [string, number][] {
  const profile = readProfile(dir);
  const sourceOf = sourcesOf(dirname(bundleFile));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    if (IDLE.has(f.functionName)) return;
    const where = (sourceOf(f) ?? f.url).replace(/^.*\/(node_modules|shared|functions|dist)\//, '$1/');
    const key = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1e6);
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => [k, Math.round(v * 1000) / 1000]);
}

/** A frame's original source path, through the source map of the bundle file it is in (`bundleDir`: where the bundle's maps are). */
function sourcesOf(bundleDir: string): (f: Frame) => string | undefined {
  const maps = new Map<string, SourceMapConsumer | null>();
  return (f) => {
    const name = f.url.split('/').pop() ?? '';
    // Outside a bundle (functions-framework over dist/, node_modules/): a file is its own source.
    if (!name.endsWith('.cjs')) return f.url.startsWith('file://') ? f.url : undefined;
    if (!maps.has(name)) {
      try {
        maps.set(name, new SourceMapConsumer(JSON.parse(readFileSync(join(bundleDir, `${name}.map`), 'utf8'))));
      } catch {
        maps.set(name, null);
      }
    }
    return maps.get(name)?.originalPositionFor({ line: f.lineNumber + 1, column: f.columnNumber }).source ?? undefined;
  };
}

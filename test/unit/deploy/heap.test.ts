// Issue 27: every place a function runs caps V8's old space under its container's memory limit
// (infra/bundle/heap.ts), and everything that runs the image's server uses the image's own flag,
// under which its code cache was warmed. Read from the committed files, as they are applied.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readDeclaration, REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { HEAP_PERCENT, IMAGE_NODE_OPTIONS, maxOldSpaceMiB, mebibytes, oldSpaceOf } from '../../../infra/bundle/heap.js';
import { CHART_DIR } from '../../../infra/helm/chart.js';
import { helmBin } from '../../../infra/helm/version.js';

type Container = { image?: string; env?: { name: string; value?: string }[]; resources?: { limits?: { memory?: string } } };
const decl = readDeclaration();

/** What is wrong with a container's heap flag against its limit; `image`: the flag it must equal. */
function heapProblems(c: Container, image?: string): string[] {
  const limit = c.resources?.limits?.memory;
  const options = c.env?.find((e) => e.name === 'NODE_OPTIONS')?.value;
  const heap = options === undefined ? undefined : oldSpaceOf(options);
  if (!limit) return ['no memory limit'];
  if (heap === undefined) return [`no --max-old-space-size under a ${limit} limit`];
  const out: string[] = [];
  if (heap > maxOldSpaceMiB(limit)) out.push(`${heap} MiB of old space is above ${HEAP_PERCENT}% of ${limit}`);
  if (image !== undefined && options !== image) out.push(`NODE_OPTIONS ${options} is not the image's ${image}: its code cache would be refused`);
  return out;
}

const containersOf = (o: { spec: { template: { spec: { containers: Container[] } } } }) => o.spec.template.spec.containers;
const knativeFunctions = () =>
  parseAllDocuments(readFileSync(join(REPO_ROOT, decl.deployment.targets.knative, '30-services.yaml'), 'utf8'))
    .map((d) => d.toJS() as { metadata: { name: string; labels?: Record<string, string> }; spec: { template: { spec: { containers: Container[] } } } })
    .filter((o) => o.metadata.labels?.['kube-tidy.dev/function']);
const gcpServices = () => {
  const dir = join(REPO_ROOT, decl.deployment.targets.gcp, 'services');
  return readdirSync(dir).map((f) => ({
    file: f,
    ...(parse(readFileSync(join(dir, f), 'utf8')) as { spec: { template: { spec: { containers: Container[] } } } }),
  }));
};

describe('heap limits where the functions run', () => {
  it('sizes the old space at 60% of a limit, in Mi or Gi, and refuses other units', () => {
    expect(maxOldSpaceMiB('256Mi')).toBe(153);
    expect(maxOldSpaceMiB('384Mi')).toBe(230);
    expect(maxOldSpaceMiB('1Gi')).toBe(614);
    expect(() => mebibytes('256M')).toThrow(/Mi or <n>Gi/);
    expect(oldSpaceOf('--max-old-space-size=153 --enable-source-maps')).toBe(153);
    expect(oldSpaceOf('--stack-size=900')).toBeUndefined();
  });

  it("the image's ENV is heap.ts's, set before the code cache is warmed", () => {
    const lines = readFileSync(join(REPO_ROOT, 'infra/docker/Dockerfile'), 'utf8').split('\n');
    const env = lines.findIndex((l) => l.startsWith(`ENV NODE_OPTIONS=${IMAGE_NODE_OPTIONS}`));
    expect(env).toBeGreaterThan(lines.findLastIndex((l) => l.startsWith('FROM ')));
    expect(env).toBeLessThan(lines.indexOf('RUN node warm.cjs'));
  });

  it('every Knative function caps its heap under its limit, with the flag the image warmed its cache under', () => {
    const services = knativeFunctions();
    expect(services.length).toBe(Object.keys(decl.functions).length);
    for (const s of services) for (const c of containersOf(s)) expect([s.metadata.name, heapProblems(c, IMAGE_NODE_OPTIONS)]).toEqual([s.metadata.name, []]);
  });

  it('every Cloud Run service does the same', () => {
    const services = gcpServices();
    expect(services.length).toBe(Object.keys(decl.functions).length);
    for (const s of services) for (const c of containersOf(s)) expect([s.file, heapProblems(c, IMAGE_NODE_OPTIONS)]).toEqual([s.file, []]);
  });

  it('the check fails on a manifest without a limit, without the flag, with a heap above its limit or another flag than the image', () => {
    const c = structuredClone(containersOf(knativeFunctions()[0]!)[0]!);
    expect(heapProblems(c, IMAGE_NODE_OPTIONS)).toEqual([]);
    expect(heapProblems({ ...c, resources: {} })).toEqual(['no memory limit']);
    expect(heapProblems({ ...c, env: c.env!.filter((e) => e.name !== 'NODE_OPTIONS') })[0]).toMatch(/no --max-old-space-size/);
    const big = { ...c, env: [{ name: 'NODE_OPTIONS', value: '--max-old-space-size=4096' }] };
    expect(heapProblems(big)[0]).toMatch(/above 60% of 256Mi/);
    expect(heapProblems(big, IMAGE_NODE_OPTIONS)).toHaveLength(2);
  });

  it("the chart's standalone process follows its own limit, raised or removed", () => {
    if (!existsSync(helmBin())) throw new Error(`no Helm at ${helmBin()}: run npm run helm:build`);
    const chart = join(mkdtempSync(join(tmpdir(), 'kube-tidy-heap-')), 'kube-tidy');
    cpSync(join(REPO_ROOT, CHART_DIR), chart, { recursive: true });
    const env = { ...process.env, HELM_CACHE_HOME: join(tmpdir(), 'kube-tidy-helm-cache'), HELM_CONFIG_HOME: join(tmpdir(), 'kube-tidy-helm-config') };
    const standalone = (...set: string[]): Container => {
      const args = [
        'template',
        'r',
        chart,
        '-n',
        'kt',
        '--set',
        'mode=standalone',
        ...set.flatMap((s) => ['--set', s]),
        '--show-only',
        'templates/standalone/deployment.yaml',
      ];
      // The chart's pod labels repeat a key (labels and selector labels): Kubernetes takes the last, so does this.
      return containersOf(parse(execFileSync(helmBin(), args, { env, encoding: 'utf8' }), { uniqueKeys: false }) as never)[0]!;
    };
    const byDefault = standalone();
    expect(byDefault.resources?.limits?.memory).toBe('384Mi');
    expect(heapProblems(byDefault)).toEqual([]);
    expect(oldSpaceOf(byDefault.env!.find((e) => e.name === 'NODE_OPTIONS')!.value!)).toBe(maxOldSpaceMiB('384Mi'));
    expect(oldSpaceOf(standalone('standalone.resources.limits.memory=1Gi').env!.find((e) => e.name === 'NODE_OPTIONS')!.value!)).toBe(614);
    // Turned off: no flag of its own, the image's default applies.
    expect(standalone('standalone.heapPercent=0').env!.some((e) => e.name === 'NODE_OPTIONS')).toBe(false);
  });
});

// Running the Helm built from Go modules (npm run helm:build) on the chart, for the tests.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, cpSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { CHART_DIR } from '../../../infra/helm/chart.js';
import { helmBin } from '../../../infra/helm/version.js';

const run = promisify(execFile);
export type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };

/**
 * A copy of the chart. files/alerts.yaml and files/dashboard.json are written by the metrics
 * work (issue 16 part 2); until they are in the tree the copy gets trivial stand-ins, so the
 * observability templates can be linted and rendered either way.
 */
export function chartCopy(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'kube-tidy-chart-')), 'kube-tidy');
  cpSync(join(REPO_ROOT, CHART_DIR), dir, { recursive: true });
  const files = join(dir, 'files');
  if (!existsSync(join(files, 'alerts.yaml'))) cpSync(join(REPO_ROOT, 'test/integration/helm/placeholder-alerts.yaml'), join(files, 'alerts.yaml'));
  if (!existsSync(join(files, 'dashboard.json'))) writeFileSync(join(files, 'dashboard.json'), '{"title":"kube-tidy","panels":[]}\n');
  return dir;
}

/** `kubeconfig`: the cluster Helm talks to (install, upgrade); `cwd` for relative chart paths. */
export async function helm(args: string[], o: { kubeconfig?: string; cwd?: string } = {}): Promise<string> {
  if (!existsSync(helmBin())) throw new Error(`no Helm at ${helmBin()}: run npm run helm:build`);
  try {
    const env = {
      ...process.env,
      HELM_CACHE_HOME: join(tmpdir(), 'kube-tidy-helm-cache'),
      HELM_CONFIG_HOME: join(tmpdir(), 'kube-tidy-helm-config'),
      ...(o.kubeconfig ? { KUBECONFIG: o.kubeconfig } : {}),
    };
    const { stdout, stderr } = await run(helmBin(), args, { maxBuffer: 32 << 20, env, ...(o.cwd ? { cwd: o.cwd } : {}) });
    return stdout + stderr;
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`helm ${args.join(' ')} failed: ${x.stderr || x.stdout || x.message}`);
  }
}

/** `helm template` as objects; `set` are --set pairs. */
export async function template(
  chart: string,
  release: string,
  namespace: string,
  set: Record<string, string> = {},
  extra: string[] = [],
): Promise<{ text: string; objects: Obj[] }> {
  const args = ['template', release, chart, '--namespace', namespace, ...Object.entries(set).flatMap(([k, v]) => ['--set', `${k}=${v}`]), ...extra];
  const text = await helm(args);
  const objects = parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
  return { text, objects };
}

export const key = (o: Obj): string => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** A container as a rendered object holds it: its image and environment. */
export interface RenderedContainer {
  image: string;
  env?: { name: string; value?: string }[];
}

/** Every container of the rendered objects (Knative Services, the Deployment, the test Pod), in order, wherever its `containers` list sits. */
export function containersOf(objects: Obj[]): RenderedContainer[] {
  const out: RenderedContainer[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k === 'containers' && Array.isArray(x)) out.push(...(x as RenderedContainer[]));
        else walk(x);
      }
  };
  objects.forEach(walk);
  return out;
}

// Cold start: from spawning the process to the first request answered, on Node 22, for
// kube-tidy's production bundle and for a hello-world functions-framework function, run
// alternately so machine noise hits both alike. Ours answers a real Knative pod event
// (decode, policy, decide) with a kubeconfig for a real local cluster; the first event
// needs no API request, as the common one does not. The bundle's code cache is warmed with the
// same Node first, as the image build does. Also, to show what each part buys: the bundle
// without its code cache, and kube-tidy unbundled through functions-framework's own main (the
// tsc build).
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle, warmCodeCache } from '../../infra/bundle/build.js';
import { node22 } from '../../infra/bundle/node22.js';
import { startServer } from '../../infra/bundle/serving.js';
import { spread } from './stats.js';
import { httpMessage, toApiServerSourceEvent } from '../../shared/cloudevents/index.js';
import { startCluster } from '../harness/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FRAMEWORK = join(ROOT, 'node_modules/@google-cloud/functions-framework/build/src/main.js');
const RUNS = Number(process.env.COLD_START_RUNS ?? 15);
let nextPort = 19400;

interface Variant {
  name: string;
  args: (port: number) => string[];
  env: Record<string, string>;
  request: () => { headers: Record<string, string>; body: string };
}

/** Milliseconds from spawn to the first 2xx answer, polling the port every 2 ms. */
async function coldStart(v: Variant): Promise<number> {
  const port = nextPort++;
  const started = performance.now();
  const child = spawn(node22(), v.args(port), {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(port), ...v.env },
    stdio: 'ignore',
  });
  try {
    const { headers, body } = v.request();
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${v.name} exited with ${child.exitCode}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body });
        await res.arrayBuffer();
        if (res.status >= 300) throw new Error(`${v.name} answered ${res.status}`);
        return performance.now() - started;
      } catch (e) {
        if ((e as Error).message.includes('answered')) throw e;
        if (performance.now() - started > 30_000) throw new Error(`${v.name} did not answer in 30 s`);
        await new Promise((r) => setTimeout(r, 2));
      }
    }
  } finally {
    child.kill('SIGKILL');
  }
}

const median = (xs: number[]) => spread(xs, 3).p50;
const round = (x: number) => Math.round(x);

export async function runColdStartBench(): Promise<object> {
  const built = await bundle();
  const warmStarted = performance.now();
  warmCodeCache(built.file, node22());
  const warmMs = performance.now() - warmStarted;
  const buildStarted = performance.now();
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'ignore' });
  const tscMs = performance.now() - buildStarted;
  const cluster = await startCluster({ name: 'cold-start', kwokNodes: 1 });
  try {
    const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-cold-'));
    // The same bundle with no code-cache/ beside it.
    mkdirSync(join(dir, 'uncached'));
    for (const f of ['server.cjs', 'app.cjs']) copyFileSync(join(dirname(built.file), f), join(dir, 'uncached', f));
    writeFileSync(join(dir, 'policy.yaml'), readFileSync(join(ROOT, 'infra/knative/policy.yaml')));
    const env = { POLICY_FILE: join(dir, 'policy.yaml'), KUBECONFIG: cluster.kubeconfigPath };
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default', uid: 'u-1', creationTimestamp: new Date().toISOString() },
      status: { phase: 'Running' },
    };
    const event =
      (p: typeof pod = pod) =>
      () =>
        httpMessage(toApiServerSourceEvent('update', p, cluster.server));
    // A pod that failed a week ago: the policy selects it, so the first request loads the
    // Kubernetes client and sends a DELETE (the pod is already gone: 404, answered as done).
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const failed = {
      ...pod,
      metadata: { ...pod.metadata, name: 'failed', uid: 'u-2', creationTimestamp: weekAgo },
      status: { phase: 'Failed', startTime: weekAgo },
    };
    const variants: Variant[] = [
      {
        name: 'hello-world (functions-framework)',
        args: (p) => [FRAMEWORK, '--target=hello', `--port=${p}`, `--source=${join(ROOT, 'test/bench/hello-world.mjs')}`],
        env: {},
        request: () => ({ headers: {}, body: '' }),
      },
      { name: 'kube-tidy bundle', args: () => [built.file], env: { ...env, FUNCTION_TARGET: 'podTerminated' }, request: event() },
      { name: 'kube-tidy bundle, first event deletes', args: () => [built.file], env: { ...env, FUNCTION_TARGET: 'podTerminated' }, request: event(failed) },
      {
        name: 'kube-tidy bundle without code cache',
        args: () => [join(dir, 'uncached', 'server.cjs')],
        env: { ...env, FUNCTION_TARGET: 'podTerminated' },
        request: event(),
      },
      {
        name: 'kube-tidy tsc build via functions-framework',
        args: (p) => [FRAMEWORK, '--target=podTerminated', `--port=${p}`, `--source=${join(ROOT, 'dist/shared/hosts/server/framework-entry.js')}`],
        env,
        request: event(),
      },
    ];
    const check = startServer(node22(), [built.file], { ...env, PORT: '0', FUNCTION_TARGET: 'podTerminated' });
    const { codeCache } = await check.serving;
    check.child.kill('SIGKILL');
    if (codeCache?.app !== 'accepted') throw new Error(`the warmed code cache was not used (${JSON.stringify(codeCache)})`);
    const times = new Map(variants.map((v) => [v.name, [] as number[]]));
    // One warm-up each (file cache), then alternate.
    for (const v of variants) await coldStart(v);
    for (let i = 0; i < RUNS; i++) for (const v of variants) times.get(v.name)!.push(await coldStart(v));
    const hello = median(times.get(variants[0]!.name)!);
    const ours = median(times.get(variants[1]!.name)!);
    return {
      node: execFileSync(node22(), ['--version'], { encoding: 'utf8' }).trim(),
      runs: RUNS,
      ...Object.fromEntries([...times].map(([name, xs]) => [`${name} ms`, (({ p50, min, max }) => ({ median: p50, min, max }))(spread(xs, 0))])),
      'ours / hello-world': Number((ours / hello).toFixed(2)),
      'goal (< 400 ms, <= 1.5x)': ours < 400 && ours / hello <= 1.5 ? 'met' : 'missed',
      'bundle KiB (app.cjs, every start)': round(built.bytes / 1024),
      'client KiB (client.cjs, first need)': round(built.clientBytes / 1024),
      'bundle build ms': built.ms,
      'code cache warm ms (7 targets)': round(warmMs),
      'code cache (podTerminated)': codeCache.app,
      'tsc build ms': round(tscMs),
    };
  } finally {
    await cluster.stop();
  }
}

// Warms the bundle's V8 code cache (see loader.cjs): for every target, start the entry once
// with KUBE_TIDY_WRITE_CODE_CACHE=1, give it the first request such a process typically
// gets, and stop it; at exit the entry writes code-cache/<target>-<build>.bin. Bundled
// beside the entry as warm.cjs and run with the Node that will serve (the Dockerfile's
// runtime stage runs `node warm.cjs`), because V8 rejects a cache from another version.
//
// The first requests: podTerminated gets a Knative update of a Running pod, the common event
// and one that needs no API request, then one of a long-failed pod, whose delete loads the
// Kubernetes client and fails fast (the kubeconfig points nowhere). That second one costs the
// common first event about 7 ms of cache to read and saves a first delete about 40 ms of
// compiling (figures in the issue 8 note). The other targets load the client at start and
// always need the cluster, so they get a GET, which the server's method check (serve/http/node-http.ts)
// answers with 405. Either way the start path, the HTTP adapter and the policy code are compiled.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { httpMessage, toApiServerSourceEvent } from '../../shared/cloudevents/encode.js';
import { startServer } from './serving.js';

/** The registered targets, put in by infra/bundle/build.ts (importing functions/index.ts here
 *  would bundle every function into this script). */
declare const __KUBE_TIDY_TARGETS__: string[];
const TARGET_NAMES = __KUBE_TIDY_TARGETS__;

// Every plugin kube-tidy runs, so their argument schemas and compile paths are warm.
const POLICY = `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: warm
    pluginConfig:
      - {name: DefaultEvictor, args: {podProtections: {defaultDisabled: [FailedBarePods]}}}
      - {name: PodLifeTime, args: {states: [Succeeded], maxPodLifeTimeSeconds: 14400}}
      - {name: RemoveFailedPods, args: {minPodLifetimeSeconds: 3600}}
      - {name: RemovePodsHavingTooManyRestarts, args: {podRestartThreshold: 100}}
    plugins:
      deschedule: {enabled: [PodLifeTime, RemoveFailedPods, RemovePodsHavingTooManyRestarts]}
`;
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:9"}}]
users: [{name: none, user: {token: none}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
`;

function podUpdate(phase: string, since: Date): RequestInit {
  const at = since.toISOString();
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'warm', namespace: 'default', uid: 'warm', creationTimestamp: at },
    status: { phase, startTime: at },
  };
  return { method: 'POST', ...httpMessage(toApiServerSourceEvent('update', pod, 'https://kubernetes.default.svc')) };
}

function firstRequests(target: string): RequestInit[] {
  if (target !== 'podTerminated') return [{ method: 'GET' }];
  return [podUpdate('Running', new Date()), podUpdate('Failed', new Date(Date.now() - 7 * 86_400_000))];
}

async function warmOne(entry: string, target: string, files: { policy: string; kubeconfig: string }): Promise<void> {
  const server = startServer(process.execPath, [entry], {
    // NODE_OPTIONS passes on: V8 rejects a cache written under other flags, a heap limit
    // included (the image's ENV NODE_OPTIONS, infra/bundle/heap.ts, which the manifests repeat).
    ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
    NODE_ENV: 'production',
    PORT: '0',
    FUNCTION_TARGET: target,
    POLICY_FILE: files.policy,
    KUBECONFIG: files.kubeconfig,
    KUBE_TIDY_WRITE_CODE_CACHE: '1',
  });
  const { port } = await server.serving.catch((e: Error) => {
    throw new Error(`${target} ${e.message}`);
  });
  for (const request of firstRequests(target)) await (await fetch(`http://127.0.0.1:${port}/`, request)).arrayBuffer();
  server.child.kill('SIGTERM');
  const code = await server.exited;
  if (code !== 0) throw new Error(`${target} exited ${code} after its first requests: ${server.stderr()}`);
}

async function main(): Promise<void> {
  const dir = dirname(process.argv[1]!);
  const entry = join(dir, 'server.cjs');
  const tmp = mkdtempSync(join(tmpdir(), 'kube-tidy-warm-'));
  const files = { policy: join(tmp, 'policy.yaml'), kubeconfig: join(tmp, 'kubeconfig') };
  writeFileSync(files.policy, POLICY);
  writeFileSync(files.kubeconfig, KUBECONFIG);
  try {
    // One at a time: concurrent starts would only slow each other down.
    for (const target of TARGET_NAMES) await warmOne(entry, target, files);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  // Every target used both files: app.cjs, and client.cjs at start or for the failed pod.
  const caches = existsSync(join(dir, 'code-cache')) ? readdirSync(join(dir, 'code-cache')) : [];
  const missing = TARGET_NAMES.flatMap((t) => ['app', 'client'].map((f) => `${t}-${f}`)).filter((p) => !caches.some((c) => c.startsWith(`${p}-`)));
  if (missing.length) throw new Error(`no code cache for ${missing.join(', ')}; found ${caches.join(', ')}`);
  process.stdout.write(`warmed ${caches.length} code caches in ${join(dir, 'code-cache')}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`warm: ${(e as Error).message}\n`);
  process.exit(1);
});

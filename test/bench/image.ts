// The production image (`npm run image`): its size, its build time, and a cold start from it:
// podTerminated started from the image's own root filesystem and config (as the image test
// runs it: a chroot as its user, root read-only) until it answers its first Knative event (a
// young Running pod: nothing to do, no API request), beside `node -e 0` from the same image,
// which is what starting any process there costs (namespaces, mounts, Node itself).
// `npm run bench image` takes the build from the cache when its inputs are unchanged;
// `-- warm` drops the image's caches first (the base stays), `-- cold` drops the base too.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { imageCache } from '../../infra/image/tools.js';
import { httpMessage, toApiServerSourceEvent } from '../../shared/cloudevents/index.js';
import { accountDir, SERVICE_ACCOUNT_DIR } from '../integration/image/image-kubelet.js';
import { imageUnderTest, startContainer, type ImageUnderTest } from '../integration/image/image-under-test.js';
import { freePorts } from '../harness/ports.js';
import { spread } from './stats.js';

const RUNS = Number(process.env.IMAGE_COLD_START_RUNS ?? 10);
const POLICY = `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: failed
    pluginConfig:
      - {name: RemoveFailedPods, args: {minPodLifetimeSeconds: 3600}}
    plugins:
      deschedule: {enabled: [RemoveFailedPods]}
`;

const event = () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u', creationTimestamp: new Date().toISOString() },
    status: { phase: 'Running' },
  };
  return httpMessage(toApiServerSourceEvent('update', pod, 'https://127.0.0.1:9'));
};

/** Milliseconds from starting the container to its first 2xx answer. */
async function coldStart(image: ImageUnderTest, policyDir: string, account: string): Promise<number> {
  const [port] = await freePorts(1);
  const started = performance.now();
  const p = startContainer(image, {
    env: {
      FUNCTION_TARGET: 'podTerminated',
      PORT: String(port),
      POLICY_FILE: '/etc/kube-tidy/policy.yaml',
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: '9',
    },
    mounts: { '/etc/kube-tidy': policyDir, [SERVICE_ACCOUNT_DIR]: account },
  });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', ...event() })
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) return performance.now() - started;
      if (performance.now() - started > 30_000) throw new Error(`no answer in 30 s: ${p.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    p.signal('SIGTERM');
    await p.exited;
  }
}

async function nodeStart(image: ImageUnderTest): Promise<number> {
  const started = performance.now();
  const p = startContainer(image, { command: ['node', '-e', '0'] });
  await p.exited;
  return performance.now() - started;
}

export async function runImageBench(mode = ''): Promise<object> {
  if (mode === 'warm' || mode === 'cold') for (const c of ['image', 'image-run', 'image-unpacked']) rmSync(imageCache(c), { recursive: true, force: true });
  if (mode === 'cold') rmSync(imageCache('image-base'), { recursive: true, force: true });
  const image = await imageUnderTest();
  const policyDir = mkdtempSync(join(tmpdir(), 'kube-tidy-bench-image-'));
  chmodSync(policyDir, 0o755);
  writeFileSync(join(policyDir, 'policy.yaml'), POLICY, { mode: 0o644 });
  const account = accountDir('none', '', 'default');
  const starts: number[] = [];
  const nodes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    nodes.push(await nodeStart(image));
    starts.push(await coldStart(image, policyDir, account));
  }
  const du = (dir: string) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
  const layers = (await import('../../infra/image/oci.js')).readImage(image.layout, image.tag).layers;
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  return {
    image: image.ref,
    build: `${image.cached ? 'cached' : mode || 'built'}: ${(image.buildMs / 1000).toFixed(1)} s`,
    compressed: mb(layers.reduce((n, l) => n + l.size, 0)),
    layersCompressed: layers.map((l) => mb(l.size)),
    rootfs: mb(du(image.rootfs)),
    coldStartMs: spread(starts),
    nodeEmptyStartMs: spread(nodes),
    load: execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).trim(),
  };
}

// The first event after a cold start (issue 23, item 4), with Knative's sender identity on as
// in production (SENDER_AUTH=kubernetes: the issuer discovered from the API server, its keys
// fetched through the cluster connection) and an event that needs the cluster (a Failed pod
// the policy selects: the client loads and the stored pod is read). The production bundle
// with its code cache, against a real local control plane; tokens minted by the API server
// for the service's audience, as Knative's adapters get theirs.
//
// Each run is a fresh process. WARM_AT_START=false is the behaviour before the warm-up (keys,
// issuer and client on the first request); the event is sent either as soon as the port
// opens (a scale from zero: the activator holds the event until the instance is ready) or
// 1.5 s later (an instance that was already up when the event came). Then a second event:
// what every later event costs, keys already fetched. And the common cold start (no sender
// check, a Running pod: nothing to do, no client needed), to show the warm-up does not get in
// its way.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import { bundle, warmCodeCache } from '../../infra/bundle/build.js';
import { node22 } from '../../infra/bundle/node22.js';
import { httpMessage, toApiServerSourceEvent } from '../../shared/cloudevents/index.js';
import { startCluster } from '../harness/index.js';
import { freePorts } from '../harness/ports.js';
import { spread } from './stats.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNS = Number(process.env.FIRST_EVENT_RUNS ?? 7);
const SETTLE_MS = 1_500;
const AUDIENCE = 'serving.knative.dev/service/kube-tidy/pod-terminated';
const NS = 'kube-tidy';
const SENDER = 'oidc-apiserversource-bench';

interface Variant {
  name: string;
  warm: boolean;
  /** Wait after the port opens before the first event. */
  delayMs: number;
  /** The common cold start instead: no sender check, an event that needs no cluster (does the warm-up get in its way?). */
  common?: true;
}

interface Run {
  /** Spawn to the port open. */
  listenMs: number;
  /** The first event, sent to answered. */
  firstMs: number;
  /** Spawn to the first event answered. */
  spawnToFirstMs: number;
  /** The next event, sent to answered. */
  nextMs: number;
}

function open(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

export async function runFirstEventBench(): Promise<object> {
  const built = await bundle(join(mkdtempSync(join(tmpdir(), 'kube-tidy-first-event-')), 'bundle', 'server.cjs'));
  warmCodeCache(built.file, node22());
  const cluster = await startCluster({ name: 'first-event', kwokNodes: 1 });
  try {
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
    await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: SENDER } } });
    const minted = await core.createNamespacedServiceAccountToken({
      name: SENDER,
      namespace: NS,
      body: { spec: { audiences: [AUDIENCE], expirationSeconds: 3600 } },
    });
    const authorization = `Bearer ${minted.status!.token}`;
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString();
    // Selected by the policy (Failed a week ago), gone from the cluster: a read, 404, answered as done.
    const event = (name: string, common = false) => {
      const pod = common
        ? {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name, namespace: 'default', uid: `u-${name}`, creationTimestamp: new Date().toISOString() },
            status: { phase: 'Running' },
          }
        : {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name, namespace: 'default', uid: `u-${name}`, creationTimestamp: weekAgo },
            status: { phase: 'Failed', startTime: weekAgo },
          };
      const m = httpMessage(toApiServerSourceEvent('update', pod, cluster.server));
      return { headers: { ...m.headers, authorization }, body: m.body };
    };
    const env = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      FUNCTION_TARGET: 'podTerminated',
      POLICY_FILE: join(ROOT, 'infra/knative/policy.yaml'),
      KUBECONFIG: cluster.kubeconfigPath,
      SENDER_AUTH: 'kubernetes',
      SENDER_AUTH_AUDIENCE: AUDIENCE,
      SENDER_AUTH_SUBJECTS: `system:serviceaccount:${NS}:${SENDER}`,
    };

    const post = async (port: number, name: string, common = false): Promise<number> => {
      const { headers, body } = event(name, common);
      const sent = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body, signal: AbortSignal.timeout(30_000) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`answered ${res.status}: ${text}`);
      return performance.now() - sent;
    };

    const coldStart = async (v: Variant): Promise<Run> => {
      const port = (await freePorts(1))[0]!;
      const spawned = performance.now();
      const senders = v.common ? { SENDER_AUTH: 'none' } : {};
      const child = spawn(node22(), [built.file], {
        cwd: ROOT,
        env: { ...env, ...senders, PORT: String(port), WARM_AT_START: String(v.warm) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += String(d)));
      try {
        while (!(await open(port))) {
          if (child.exitCode !== null) throw new Error(`${v.name}: exited ${child.exitCode}: ${stderr}`);
          if (performance.now() - spawned > 30_000) throw new Error(`${v.name}: not listening after 30 s`);
          await new Promise((r) => setTimeout(r, 2));
        }
        const listenMs = performance.now() - spawned;
        if (v.delayMs) await new Promise((r) => setTimeout(r, v.delayMs));
        const firstMs = await post(port, 'first', v.common);
        const spawnToFirstMs = performance.now() - spawned;
        const nextMs = await post(port, 'next', v.common);
        return { listenMs, firstMs, spawnToFirstMs, nextMs };
      } finally {
        child.kill('SIGKILL');
      }
    };

    const variants: Variant[] = [
      { name: 'before (no warm-up), event at listen', warm: false, delayMs: 0 },
      { name: 'warm-up, event at listen', warm: true, delayMs: 0 },
      { name: `before (no warm-up), event ${SETTLE_MS} ms after listen`, warm: false, delayMs: SETTLE_MS },
      { name: `warm-up, event ${SETTLE_MS} ms after listen`, warm: true, delayMs: SETTLE_MS },
      { name: 'common cold start (no sender check, nothing to do), no warm-up', warm: false, delayMs: 0, common: true },
      { name: 'common cold start (no sender check, nothing to do), warm-up', warm: true, delayMs: 0, common: true },
    ];
    const runs = new Map(variants.map((v) => [v.name, [] as Run[]]));
    // One each first (file cache), then alternate so machine noise hits all alike.
    for (const v of variants) await coldStart(v);
    for (let i = 0; i < RUNS; i++) for (const v of variants) runs.get(v.name)!.push(await coldStart(v));

    const summary = (xs: number[]) => (({ p50, min, max }) => ({ median: p50, min, max }))(spread(xs, 0));
    const all = variants.filter((v) => !v.common).flatMap((v) => runs.get(v.name)!);
    return {
      runs: RUNS,
      ...Object.fromEntries(
        [...runs].map(([name, rs]) => [
          `${name}: first event ms`,
          {
            ...summary(rs.map((r) => r.firstMs)),
            'spawn to answer': spread(
              rs.map((r) => r.spawnToFirstMs),
              0,
            ).p50,
          },
        ]),
      ),
      'next event ms (keys fetched, client loaded)': summary(all.map((r) => r.nextMs)),
      'spawn to listening ms': summary(all.map((r) => r.listenMs)),
    };
  } finally {
    await cluster.stop();
  }
}

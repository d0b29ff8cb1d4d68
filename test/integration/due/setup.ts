// podTerminated at eligibleAt against the real cluster: a runtime whose every request is seen
// (the client's onRequest), so a test can say "no pod LIST was sent", and a due list of its own
// (DUE_NAMESPACE), so no other test's entries reach its ticks.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from '@google-cloud/functions-framework';
import { CoreV1Api } from '@kubernetes/client-node';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { pino } from 'pino';
import supertest from 'supertest';
import { kubeClients } from '../../../shared/kube/index.js';
import { startRuntime, type Runtime } from '../../../shared/runtime/runtime.js';
import { serveTarget } from '../../../shared/serve/http/functions-framework.js';
import type { TargetSpec } from '../../../shared/serve/target.js';
import { sharedCluster } from '../../harness/index.js';

let counter = 0;

export interface Seen {
  method: string;
  path: string;
}

/** A pod LIST (any namespace, any selector): what acting at eligibility must never need. */
export const isPodList = (r: Seen): boolean => r.method === 'GET' && /^\/api\/v1\/(namespaces\/[^/]+\/)?pods$/.test(r.path);
/** A read of the due list's ConfigMaps. */
export const isDueRead = (r: Seen): boolean => r.method === 'GET' && /\/configmaps\/kube-tidy-due-\d+$/.test(r.path);

/** A fresh runtime (its own brakes' ledger and due list namespace unless `env` names them) and every request it sends. */
export async function countedRuntime(policy: unknown, env: Record<string, string> = {}): Promise<{ rt: Runtime; requests: Seen[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-due-'));
  const file = join(dir, 'policy.json');
  writeFileSync(file, JSON.stringify(policy));
  const requests: Seen[] = [];
  const kubeConfig = sharedCluster().kubeConfig();
  const clients = kubeClients(kubeConfig, {
    onRequest: (method, url) => {
      const u = new URL(url);
      requests.push({ method, path: u.pathname });
    },
  });
  const n = ++counter;
  const rt = await startRuntime(
    { POLICY_FILE: file, KUBECONFIG: sharedCluster().kubeconfigPath, BRAKES_NAMESPACE: `due-brakes-${process.pid}-${n}`, ...env },
    { log: pino({ level: process.env.DUE_TEST_LOG ?? 'silent' }), kubeConfig, clients },
  );
  return { rt, requests };
}

/** Serves `spec` with these parts under functions-framework (as `--target` does), and returns a supertest agent. */
export function serveParts<P>(spec: TargetSpec<P>, parts: P, rt: Runtime) {
  const name = `due-fn-${++counter}`;
  http(name, serveTarget(spec, parts, rt));
  return supertest(getTestServer(name));
}

/** The uids in a due list (its four shards), read as they are stored. */
export async function dueEntries(namespace: string): Promise<string[]> {
  const uids: string[] = [];
  for (let s = 0; s < 4; s++) {
    const cm = await sharedCluster()
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ namespace, name: `kube-tidy-due-${s}` })
      .catch(() => undefined);
    uids.push(...Object.keys(cm?.data ?? {}));
  }
  return uids;
}

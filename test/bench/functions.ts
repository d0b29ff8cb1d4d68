// Bench `functions`: one podTerminated instance, a separate functions-framework process
// serving the production entry point, driven by a load loop in this process sending Knative
// ApiServerSource (Resource mode, binary) CloudEvents for real pods of a real cluster.
//   nothing-to-do: update events for Running pods the policy does not select (no API request)
//   delete:        one update event per Failed pod exiting 3: DELETE (uid precondition) + Event;
//                  then once more at concurrency 8 with RECORD_EVENTS=false (the DELETE alone)
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { httpMessage, toApiServerSourceEvent, type HttpMessage, type KubeObject } from '../../shared/cloudevents/index.js';
import { withCluster } from './cluster.js';
import { FUNCTIONS_ENTRY, withFunction } from './function-process.js';
import { drive, type LoadResult } from './load.js';
import { createNamespace, createPods, SELECTED_EXIT_CODE, writePolicy } from './pods.js';
import { rate, spread } from './stats.js';

const CONCURRENCY = [8, 32];
const NOTHING_EVENTS = 4000;
const WARMUP_EVENTS = 500;
const RUNNING_PODS = 64;
const DELETE_PODS = 500;
const NS = 'bench';

function figures(r: LoadResult) {
  return { eventsPerSecond: rate(r.events, r.ms), latencyMs: spread(r.latenciesMs), outcomes: r.outcomes };
}

function events(pods: V1Pod[], server: string): HttpMessage[] {
  // As the watch delivers it: a plain JSON object, not client-node's class instances.
  return pods.map((p) =>
    httpMessage(toApiServerSourceEvent('update', { apiVersion: 'v1', kind: 'Pod', ...JSON.parse(JSON.stringify(p)) } as KubeObject, server)),
  );
}

export async function runFunctionsBench(): Promise<object> {
  return withCluster('bench-functions', 15, async (cluster) => {
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    await createNamespace(core, NS);
    const running = await createPods(core, NS, 'running', RUNNING_PODS);
    const failed: V1Pod[][] = [];
    for (const c of CONCURRENCY) failed.push(await createPods(core, NS, `failed-c${c}`, DELETE_PODS, SELECTED_EXIT_CODE));
    const quiet = await createPods(core, NS, 'failed-noevents', DELETE_PODS, SELECTED_EXIT_CODE);
    const env = { POLICY_FILE: writePolicy(), KUBECONFIG: cluster.kubeconfigPath };

    const out = await withFunction('podTerminated', FUNCTIONS_ENTRY, env, async (fn) => {
      const out: Record<string, unknown> = { process: 'functions-framework child process, shared/hosts/server/framework-entry.ts through tsx, LOG_LEVEL info' };
      const idle = events(running, cluster.server);
      await drive(fn.url, idle, WARMUP_EVENTS, 8);
      for (const c of CONCURRENCY) out[`nothingToDo_c${c}`] = figures(await drive(fn.url, idle, NOTHING_EVENTS, c));
      for (const [i, c] of CONCURRENCY.entries()) {
        const r = await drive(fn.url, events(failed[i]!, cluster.server), DELETE_PODS, c);
        out[`delete_c${c}`] = figures(r);
      }
      return out;
    });
    await withFunction('podTerminated', FUNCTIONS_ENTRY, { ...env, RECORD_EVENTS: 'false' }, async (fn) => {
      out.delete_c8_withoutEvents = figures(await drive(fn.url, events(quiet, cluster.server), DELETE_PODS, 8));
    });
    out.failedPodsLeft = (await core.listNamespacedPod({ namespace: NS, fieldSelector: 'status.phase=Failed' })).items.length;
    return out;
  });
}

// What shared/hosts/server/framework-entry.ts serves, plus a trace on stdout (one JSON line each) of every API
// request as it is sent, every pod DELETE as it is answered, and every answer to the
// caller, with timestamps comparable across processes. Loaded by functions-framework with
// --source; the handlers, runtime and clients are the production ones.
import { httpFunction } from '../../shared/serve/http/functions-framework.js';
import type { TargetSpec } from '../../shared/serve/target.js';
import { http, type HttpFunction } from '@google-cloud/functions-framework';
import { invoke } from '../../functions/invoke.js';
import { podTerminated } from '../../functions/pod-terminated.js';
import { sweep } from '../../functions/sweep.js';
import { kubeClients, loadKubeConfig } from '../../shared/kube/index.js';
import { readConfig } from '../../shared/runtime/config.js';
import { startRuntime } from '../../shared/runtime/runtime.js';
import { nowMs } from './stats.js';

const trace = (entry: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(entry)}\n`);

const config = readConfig();
const kubeConfig = loadKubeConfig(config.KUBECONFIG ? { kubeconfig: config.KUBECONFIG } : {});
const clients = kubeClients(kubeConfig, {
  timeoutMs: config.REQUEST_TIMEOUT_SECONDS * 1000,
  qps: config.KUBE_CLIENT_QPS,
  burst: config.KUBE_CLIENT_BURST,
  onRequest: (method, url) => trace({ trace: 'kube', t: nowMs(), method, url }),
});
const del = clients.core.deleteNamespacedPod.bind(clients.core);
clients.core.deleteNamespacedPod = (async (param: Parameters<typeof del>[0], options?: Parameters<typeof del>[1]) => {
  try {
    return await del(param, options);
  } finally {
    trace({ trace: 'deleted', t: nowMs(), pod: `${param.namespace}/${param.name}` });
  }
}) as typeof del;
const runtime = await startRuntime(process.env, { kubeConfig, clients });

function traced(fn: HttpFunction): HttpFunction {
  return (req, res) => {
    const t0 = nowMs();
    let body: { outcome?: string; pod?: string } = {};
    const json = res.json.bind(res);
    res.json = (b: typeof body) => json((body = b ?? {}));
    res.once('finish', () => trace({ trace: 'answer', t0, t: nowMs(), method: req.method, status: res.statusCode, outcome: body.outcome, pod: body.pod }));
    return fn(req, res);
  };
}

for (const spec of [podTerminated, sweep, invoke] as TargetSpec<unknown>[]) http(spec.name, traced(httpFunction(spec, runtime)));

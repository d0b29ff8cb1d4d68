import type { KubeConfig } from '@kubernetes/client-node';
import { kubeClients, loadKubeConfig, type KubeClients } from '../kube/index.js';
import { createLogger, type Logger } from '../log.js';
import { readConfig, type RuntimeConfig } from './config.js';
import { configMapPolicySource, filePolicySource, type PolicySource } from './policy-source.js';

/** Everything a function needs besides its input, built once per process. */
export interface Runtime {
  config: RuntimeConfig;
  log: Logger;
  kubeConfig: KubeConfig;
  clients: KubeClients;
  policy: PolicySource;
  /** The clock, injectable for tests. */
  now(): number;
}

/**
 * Reads the configuration and the policy and connects to the cluster. Throws ConfigError,
 * PolicyError or KubeConfigError with every problem named: the process must not start
 * serving with a bad setup.
 */
export async function startRuntime(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Runtime> = {}): Promise<Runtime> {
  const config = readConfig(env);
  const log = overrides.log ?? createLogger({ env });
  const kubeConfig = overrides.kubeConfig ?? loadKubeConfig(config.KUBECONFIG ? { kubeconfig: config.KUBECONFIG } : {});
  const clients = kubeClients(kubeConfig, { timeoutMs: config.REQUEST_TIMEOUT_SECONDS * 1000 });
  let policy: PolicySource;
  if (config.POLICY_FILE) {
    policy = filePolicySource(config.POLICY_FILE, config.ALLOW_UNSUPPORTED_PLUGINS);
  } else {
    const [namespace, name] = config.POLICY_CONFIGMAP!.split('/') as [string, string];
    policy = await configMapPolicySource(kubeConfig, { namespace, name, key: config.POLICY_CONFIGMAP_KEY }, config.ALLOW_UNSUPPORTED_PLUGINS, log);
  }
  for (const w of policy.current().warnings) log.warn({ policySource: policy.describe() }, w);
  log.info({ policySource: policy.describe(), dryRun: config.DRY_RUN }, 'kube-tidy runtime ready');
  return { config, log, kubeConfig, clients, policy, now: Date.now, ...overrides };
}

// Where the cluster credentials come from, in a fixed order with no surprises: an explicit
// path, else KUBECONFIG, else the pod's service account. Unlike client-node's
// loadFromDefault there is no silent fallback to ~/.kube/config or http://localhost:8080:
// a function that talks to the wrong cluster is worse than one that refuses to start.
import { KubeConfig } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, resolve } from 'node:path';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export type KubeConfigSource = 'path' | 'KUBECONFIG' | 'in-cluster';

export interface LoadKubeConfigOptions {
  /** Explicit kubeconfig files (the CLI's --kubeconfig, or a runtime's KUBECONFIG), split as KUBECONFIG is. */
  kubeconfig?: string;
  /** A context other than the file's current-context (the CLI's --context), as kubectl does. */
  context?: string;
  /** Prefix for the service-account files (tests point it at a temp dir). */
  inClusterPathPrefix?: string;
}

export class KubeConfigError extends Error {
  override name = 'KubeConfigError';
}

// Parse errors from the YAML library quote the offending lines, which may hold a token:
// keep only the file name and the kind of problem.
function loadFile(file: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why = code === 'ENOENT' ? 'no such file' : typeof code === 'string' ? code : 'not a readable kubeconfig';
    throw new KubeConfigError(`kubeconfig ${file}: ${why}`);
  }
  // As kubectl: an exec command with a slash in it is relative to the file, not to the cwd.
  for (const u of kc.getUsers()) {
    const exec = u.exec as { command?: unknown } | undefined;
    if (typeof exec?.command === 'string' && exec.command.includes('/') && !isAbsolute(exec.command)) exec.command = resolve(dirname(file), exec.command);
  }
  return kc;
}

function fromFiles(files: string[], origin: string): KubeConfig {
  const [first, ...rest] = files;
  if (first === undefined) throw new KubeConfigError(`${origin} names no file`);
  const kc = loadFile(first);
  // kubectl semantics: later files add clusters/users/contexts, the first file's context wins.
  for (const file of rest) kc.mergeConfig(loadFile(file), true);
  return kc;
}

export function describeSource(opts: LoadKubeConfigOptions = {}): KubeConfigSource | undefined {
  const env = process.env;
  if (opts.kubeconfig) return 'path';
  if (env.KUBECONFIG) return 'KUBECONFIG';
  if (env.KUBERNETES_SERVICE_HOST) return 'in-cluster';
  return undefined;
}

export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): KubeConfig {
  let kc: KubeConfig;
  let where = 'in-cluster';
  switch (describeSource(opts)) {
    case 'path':
      where = opts.kubeconfig ?? '';
      kc = fromFiles(where.split(delimiter).filter(Boolean), '--kubeconfig');
      break;
    case 'KUBECONFIG':
      where = process.env.KUBECONFIG ?? '';
      kc = fromFiles(where.split(delimiter).filter(Boolean), 'KUBECONFIG');
      break;
    case 'in-cluster': {
      const prefix = opts.inClusterPathPrefix ?? '';
      if (!existsSync(`${prefix}${SERVICE_ACCOUNT_TOKEN}`)) {
        throw new KubeConfigError(`KUBERNETES_SERVICE_HOST is set but ${prefix}${SERVICE_ACCOUNT_TOKEN} does not exist (automountServiceAccountToken off?)`);
      }
      kc = new KubeConfig();
      kc.loadFromCluster(prefix);
      break;
    }
    default:
      throw new KubeConfigError('no cluster configured: pass --kubeconfig, set KUBECONFIG, or run in a pod with a service account');
  }
  if (opts.context !== undefined) {
    if (!kc.getContexts().some((c) => c.name === opts.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new KubeConfigError(`kubeconfig ${where}: no context "${opts.context}"${known.length ? ` (it has ${known.join(', ')})` : ''}`);
    }
    kc.setCurrentContext(opts.context);
  }
  if (!kc.getCurrentCluster()) throw new KubeConfigError(`kubeconfig ${where}: no cluster for context "${kc.getCurrentContext()}"`);
  return kc;
}

/** What to log about a KubeConfig: never the user entry, which holds the credentials. */
export function describeKubeConfig(kc: KubeConfig): { context: string; server: string } {
  const server = kc.getCurrentCluster()?.server ?? '';
  return { context: kc.getCurrentContext(), server: server.replace(/\/\/[^/@]*@/, '//') };
}

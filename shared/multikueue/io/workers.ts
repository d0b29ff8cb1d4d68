// Which workers there are and how to reach them: from the manager's MultiKueueConfig /
// MultiKueueCluster objects and their kubeconfigs (a Secret in the Kueue namespace, key
// `kubeconfig`, or a file path), or from static configuration. Clients are cached per worker
// and rebuilt when its kubeconfig changes (the Secret's resourceVersion, the file's content).
// Nothing here ever logs or returns kubeconfig contents: parse errors are replaced by a
// generic message, since YAML errors quote the offending (credential) lines.
import { createHash } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeClients, type KubeClientOptions, type KubeClients } from '../../kube/clients.js';
import { classifyKubeError, toKubeError, TransientKubeError } from '../../kube/errors.js';
import { describeBytes, FileTooLargeError, readFileCapped } from '../../config/bounded-read.js';

export interface Worker {
  name: string;
  /** shared/kube's clients for the worker (one timeout, kept-alive connections, the path guard). */
  api?: KubeClients;
  /** Why it cannot be used now; `transient`: a retry may help (answer 5xx). */
  error?: { message: string; transient: boolean };
}

export interface WorkerSourceOptions extends Pick<KubeClientOptions, 'timeoutMs' | 'onRequest' | 'metrics'> {
  kueueNamespace: string;
  /** A MultiKueueConfig name: only its clusters. Default: every MultiKueueCluster. */
  configName?: string;
  /** `name=/path/kubeconfig` entries: no discovery. */
  staticWorkers?: string[];
  ttlMs: number;
  now: () => number;
}

interface ClusterSpec {
  metadata?: { name?: string };
  spec?: { clusterSource?: { kubeConfig?: { location: string; locationType?: 'Secret' | 'Path' }; clusterProfileRef?: unknown } };
}

type Source = { name: string; fingerprint: string; text: string } | { name: string; error: Worker['error'] };

const GROUP = 'kueue.x-k8s.io';
const VERSION = 'v1beta2';
const sha = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

export class Workers {
  private readonly cache = new Map<string, { fingerprint: string; api: KubeClients }>();
  private listed?: { at: number; workers: Worker[] };

  constructor(
    private readonly manager: Pick<KubeClients, 'core' | 'custom'>,
    private readonly opts: WorkerSourceOptions,
  ) {}

  /** Throws TransientKubeError/KubeRequestError when the manager cannot be read. */
  async list(): Promise<Worker[]> {
    if (this.listed && this.opts.now() - this.listed.at < this.opts.ttlMs) return this.listed.workers;
    const sources = this.opts.staticWorkers ? this.opts.staticWorkers.map(fromStatic) : await this.discover();
    const workers = sources.map((s) => this.connect(s));
    for (const [name, entry] of this.cache) {
      if (!sources.some((s) => s.name === name)) {
        entry.api.close();
        this.cache.delete(name);
      }
    }
    this.listed = { at: this.opts.now(), workers };
    return workers;
  }

  /** Forget the listed workers (not the clients): the next list() reads the manager again. */
  invalidate(): void {
    this.listed = undefined;
  }

  private connect(source: Source): Worker {
    if ('error' in source) return { name: source.name, error: source.error };
    const cached = this.cache.get(source.name);
    if (cached?.fingerprint === source.fingerprint) return { name: source.name, api: cached.api };
    cached?.api.close();
    try {
      const api = kubeClients(parseKubeConfig(source.text), {
        timeoutMs: this.opts.timeoutMs,
        onRequest: this.opts.onRequest,
        ...(this.opts.metrics ? { metrics: this.opts.metrics } : {}),
      });
      this.cache.set(source.name, { fingerprint: source.fingerprint, api });
      return { name: source.name, api };
    } catch (e) {
      this.cache.delete(source.name);
      return { name: source.name, error: { message: (e as Error).message, transient: false } };
    }
  }

  private async discover(): Promise<Source[]> {
    const { custom, core } = this.manager;
    let names: string[] | undefined;
    let clusters: ClusterSpec[];
    try {
      if (this.opts.configName) {
        const config = (await custom.getClusterCustomObject({ group: GROUP, version: VERSION, plural: 'multikueueconfigs', name: this.opts.configName })) as {
          spec?: { clusters?: string[] };
        };
        names = config.spec?.clusters ?? [];
      }
      clusters = ((await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'multikueueclusters' })) as { items: ClusterSpec[] }).items;
    } catch (e) {
      throw toKubeError(e, this.opts.configName ? `read MultiKueueConfig ${this.opts.configName} and its clusters` : 'list MultiKueueClusters');
    }
    const wanted = names ?? clusters.map((c) => c.metadata?.name ?? '');
    return Promise.all(
      wanted.map(async (name): Promise<Source> => {
        const cluster = clusters.find((c) => c.metadata?.name === name);
        const ref = cluster?.spec?.clusterSource?.kubeConfig;
        if (!cluster) return { name, error: { message: `MultiKueueCluster ${name} does not exist`, transient: false } };
        if (!ref)
          return {
            name,
            error: { message: `MultiKueueCluster ${name}: only kubeConfig cluster sources are supported (not clusterProfileRef)`, transient: false },
          };
        if (ref.locationType === 'Path') return fromPath(name, ref.location);
        try {
          const secret = await core.readNamespacedSecret({ namespace: this.opts.kueueNamespace, name: ref.location });
          const data = secret.data?.kubeconfig;
          if (!data) return { name, error: { message: `Secret ${this.opts.kueueNamespace}/${ref.location} has no key "kubeconfig"`, transient: false } };
          return {
            name,
            fingerprint: `secret:${secret.metadata?.uid}:${secret.metadata?.resourceVersion}`,
            text: Buffer.from(data, 'base64').toString('utf8'),
          };
        } catch (e) {
          const err = toKubeError(e, `read Secret ${this.opts.kueueNamespace}/${ref.location} of worker ${name}`);
          if (classifyKubeError(e).kind === 'unknown') throw e;
          return { name, error: { message: err.message, transient: err instanceof TransientKubeError } };
        }
      }),
    );
  }
}

/**
 * A kubeconfig file is at most what a Secret may hold (1 MiB). A MultiKueueCluster names its
 * path (locationType Path), so the object decides what is read: `/dev/zero` or a FIFO would
 * otherwise be read until the process runs out of memory (bounded-read.ts).
 */
export const MAX_KUBECONFIG_BYTES = 1 << 20;

function fromPath(name: string, path: string): Source {
  try {
    const text = readFileCapped(path, MAX_KUBECONFIG_BYTES);
    return { name, fingerprint: `path:${sha(text)}`, text };
  } catch (e) {
    const why = e instanceof FileTooLargeError ? `larger than ${describeBytes(MAX_KUBECONFIG_BYTES)}` : ((e as NodeJS.ErrnoException).code ?? 'unreadable');
    return { name, error: { message: `kubeconfig ${path} of worker ${name}: ${why}`, transient: false } };
  }
}

function fromStatic(entry: string): Source {
  const at = entry.indexOf('=');
  return fromPath(entry.slice(0, at), entry.slice(at + 1));
}

// A kubeconfig in a Secret must not be able to run programs in kube-tidy's process (exec,
// auth-provider plugins), the same rule Kueue applies to worker kubeconfigs.
function parseKubeConfig(text: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text);
  } catch {
    throw new Error('not a readable kubeconfig');
  }
  const user = kc.getCurrentUser();
  if (user?.exec || user?.authProvider) throw new Error('exec and auth-provider credentials are not allowed in worker kubeconfigs');
  if (!kc.getCurrentCluster()) throw new Error('kubeconfig has no current cluster');
  return kc;
}

// startCluster(): etcd + kube-apiserver + kube-controller-manager + kube-scheduler + kwok on
// free loopback ports, ready when /readyz answers, the kwok nodes are Ready and the default
// ServiceAccount exists. stop() (or the process ending, however it ends) removes it all.
import { KubeConfig } from '@kubernetes/client-node';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BINARIES, binPath } from '../../infra/local/versions.js';
import { auditArgs, AuditLog } from './audit.js';
import { apiserverArgs, controllerManagerArgs, EVICTION_REQUEST_API_ARGS, etcdArgs, kwokArgs, schedulerArgs } from './components.js';
import { writeCredentials, writeKubeconfig } from './credentials.js';
import { installCrds } from './crds.js';
import { kubeRequest, type Endpoint } from './kube-http.js';
import { createKwokNodes, waitForNodesReady } from './nodes.js';
import { freePorts } from './ports.js';
import { killGroups, recordedPids, spawnComponent, startWatchdog, trackForCleanup, untrack } from './processes.js';
import { waitFor } from './wait.js';

export interface ClusterOptions {
  name: string;
  /** CRD directories to install (and wait Established) before the cluster counts as ready. */
  crdDirs?: string[];
  /** Number of kwok-managed fake nodes, named kwok-<name>-<i>. Default 1. */
  kwokNodes?: number;
  /** State directory; default a fresh temp dir. The cluster CLI uses one under the cache. */
  dir?: string;
  /** Survive the starting process (no watchdog, no exit hooks): for `npm run cluster:up`. */
  persistent?: boolean;
  /**
   * kube-scheduler profiles (KubeSchedulerConfiguration v1 `profiles`), e.g. NodeResourcesFit
   * with MostAllocated for the defragmentation measurements. Default: the built-in profile.
   */
  schedulerProfiles?: unknown[];
  /**
   * Run kube-apiserver with an audit log of every write request (Metadata level, refused ones
   * too): `cluster.audit` reads it (test/harness/audit.ts).
   */
  audit?: boolean;
  /**
   * Appended to kube-controller-manager's flags (a later flag wins), e.g.
   * `--terminated-pod-gc-threshold=100` (the scale bench's PodGC anchor) or
   * `--controllers=*,-nodelifecycle,-podgc` (PodGC off, so a backlog stays put
   * until kube-tidy clears it; the whole list: it replaces the harness's).
   */
  controllerManagerArgs?: string[];
  /**
   * Serve KEP-4563's lifecycle.k8s.io/v1alpha1 (EvictionRequest, Eviction) with its feature
   * gate on. Default true; false for a cluster as v1.37 runs by default (the group absent).
   */
  evictionRequestApi?: boolean;
  /**
   * A stopped etcd's data directory (a snapshot of a cluster made by this harness), copied into
   * <dir>/etcd before etcd starts: the cluster comes back with every object it had. Credentials,
   * certificates and ports are new (ServiceAccount tokens must be minted again); etcd keeps the
   * member it had, which for a one-member cluster only means its old peer URL stays on record.
   */
  etcdDataFrom?: string;
}

export interface Cluster {
  name: string;
  dir: string;
  server: string;
  kubeconfigPath: string;
  /** Milliseconds from startCluster() to ready. */
  readyMs: number;
  endpoint: Endpoint;
  /** With `audit: true`: the writes the API server received. */
  audit?: AuditLog;
  /** With `audit: true`: where the log is. */
  auditLogPath?: string;
  kubeConfig(): KubeConfig;
  stop(): Promise<void>;
}

const stagesFile = join(dirname(fileURLToPath(import.meta.url)), 'kwok-stages.yaml');

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const started = Date.now();
  const missing = BINARIES.filter((name) => !existsSync(binPath(name)));
  if (missing.length) throw new Error(`missing ${missing.join(', ')}: run npm run controlplane:build`);

  const dir = options.dir ?? mkdtempSync(join(tmpdir(), `kube-tidy-${options.name}-`));
  mkdirSync(dir, { recursive: true });
  const persistent = options.persistent ?? false;
  let watchdog: number | undefined;
  if (!persistent) {
    trackForCleanup(dir);
    watchdog = startWatchdog(dir);
  }
  const stop = async (): Promise<void> => {
    await killGroups(recordedPids(dir));
    // The watchdog has nothing left to guard once the components are gone.
    if (watchdog !== undefined) await killGroups([watchdog], 1_000);
    untrack(dir);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const [etcdClient = 0, etcdPeer = 0, apiserver = 0] = await freePorts(3);
    const ports = { etcdClient, etcdPeer, apiserver };
    const creds = writeCredentials(dir);
    const audit = options.audit ? auditArgs(dir) : undefined;
    if (options.etcdDataFrom) cpSync(options.etcdDataFrom, join(dir, 'etcd'), { recursive: true });
    spawnComponent(dir, 'etcd', binPath('etcd'), etcdArgs(dir, ports), persistent);
    spawnComponent(
      dir,
      'kube-apiserver',
      binPath('kube-apiserver'),
      apiserverArgs(dir, ports, creds, [...(audit?.args ?? []), ...(options.evictionRequestApi === false ? [] : EVICTION_REQUEST_API_ARGS)]),
      persistent,
    );

    const server = `https://127.0.0.1:${apiserver}`;
    const caFile = join(dir, 'pki', 'apiserver.crt');
    const ca = await waitFor('the apiserver serving certificate', async () => existsSync(caFile) && readFileSync(caFile, 'utf8'));
    const endpoint = { server, ca, token: creds.tokens.admin };
    await waitFor('kube-apiserver /readyz', async () => (await kubeRequest(endpoint, 'GET', '/readyz')).status === 200, {
      timeoutMs: 90_000,
    });

    const kubeconfigPath = writeKubeconfig(join(dir, 'kubeconfig'), options.name, server, ca, creds.tokens.admin);
    writeKubeconfig(join(dir, 'controller-manager.kubeconfig'), options.name, server, ca, creds.tokens.controllerManager);
    writeKubeconfig(join(dir, 'scheduler.kubeconfig'), options.name, server, ca, creds.tokens.scheduler);
    writeKubeconfig(join(dir, 'kwok.kubeconfig'), options.name, server, ca, creds.tokens.kwok);
    const cmArgs = [...controllerManagerArgs(dir, creds, caFile), ...(options.controllerManagerArgs ?? [])];
    spawnComponent(dir, 'kube-controller-manager', binPath('kube-controller-manager'), cmArgs, persistent);
    spawnComponent(dir, 'kube-scheduler', binPath('kube-scheduler'), schedulerArgs(dir, options.schedulerProfiles), persistent);
    spawnComponent(dir, 'kwok', binPath('kwok'), kwokArgs(dir, stagesFile), persistent);

    const nodes = await createKwokNodes(endpoint, options.name, options.kwokNodes ?? 1);
    await Promise.all([
      waitForNodesReady(endpoint, nodes),
      waitFor('the default ServiceAccount', async () => {
        const reply = await kubeRequest(endpoint, 'GET', '/api/v1/namespaces/default/serviceaccounts/default');
        return reply.status === 200;
      }),
    ]);

    const cluster: Cluster = {
      name: options.name,
      dir,
      server,
      kubeconfigPath,
      readyMs: 0,
      endpoint,
      ...(audit ? { audit: new AuditLog(audit.logPath, endpoint), auditLogPath: audit.logPath } : {}),
      kubeConfig() {
        const kc = new KubeConfig();
        kc.loadFromFile(kubeconfigPath);
        return kc;
      },
      stop,
    };
    for (const crdDir of options.crdDirs ?? []) await installCrds(cluster, crdDir);
    cluster.readyMs = Date.now() - started;
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ name: options.name, server, kubeconfigPath }) + '\n');
    console.log(`[harness] cluster ${options.name} ready in ${(cluster.readyMs / 1000).toFixed(1)} s (${server})`);
    return cluster;
  } catch (error) {
    const logs = join(dir, 'logs');
    await stop();
    throw new Error(`cluster ${options.name} failed to start: ${(error as Error).message} (logs were in ${logs})`);
  }
}

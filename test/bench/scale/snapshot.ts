// The scale population as an etcd snapshot (issue 27): populated once per size, then restored
// for every experiment, so each starts from the very same objects and a second bench run
// skips the population (10-12 minutes for 150,000 pods at 315-600 writes/s here).
//
// The snapshot is a file copy of etcd's data directory taken after etcd has stopped cleanly
// (SIGTERM, then its exit awaited), not `etcdctl snapshot save` + `etcdutl snapshot restore`:
// the harness builds etcd alone (infra/local/build.ts), and etcdutl would be one more cached Go
// build for the same result. etcd on a copied directory keeps its member id and the peer URL it
// had; a one-member cluster never dials a peer, so the new ports serve as they would on a fresh
// directory (the harness passes the copy as ClusterOptions.etcdDataFrom). What a restore needs
// again is everything outside etcd: new certificates, static tokens and ServiceAccount keys
// (the harness writes them per start), hence tokens of the function identities minted again
// (their ServiceAccounts and RBAC are in the snapshot).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, cpSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { cacheRoot, ETCD_VERSION, K8S_VERSION } from '../../../infra/local/versions.js';
import { functionIdentities } from '../../harness/function-identity.js';
import { startCluster, type Cluster, type ClusterOptions } from '../../harness/index.js';
import { killGroups, recordedPids } from '../../harness/processes.js';
import { withCluster } from '../cluster.js';
import { populate, prepareCluster, unthrottled, type Population } from './populate.js';

/**
 * Bumped whenever populate.ts's recipe (or what the snapshot holds besides it) changes: a new
 * version is a new cache directory. The control plane's versions are part of the key too (an
 * etcd data directory belongs to its etcd and its API server's storage versions).
 */
export const RECIPE_VERSION = `r1-${K8S_VERSION}-etcd${ETCD_VERSION}`;

/** PodGC off (the whole controller list: it replaces the harness's), so the backlog stays put. */
export const PODGC_OFF = ['--controllers=*,-nodelifecycle,-podgc'];
/** The namespaces of the function identities, as scale.ts creates them. */
export const IDENTITY_NAMESPACES = ['kube-tidy', 'kube-tidy-kueue'] as const;

export interface SnapshotMeta {
  size: number;
  recipe: string;
  population: Population & { writesPerSecond: number };
  populatedAt: string;
  etcdMiB: number;
}

export interface Snapshot {
  /** The etcd data directory to restore from. */
  etcd: string;
  meta: SnapshotMeta;
  /** Taken from the cache (no population in this run). */
  cached: boolean;
}

export const snapshotDir = (size: number): string => join(cacheRoot(), 'bench-snapshots', `${size}-${RECIPE_VERSION}`);

const treeBytes = (path: string): number => {
  const st = statSync(path);
  return st.isDirectory() ? readdirSync(path).reduce((n, f) => n + treeBytes(join(path, f)), 0) : st.size;
};

const cmdline = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

/** The pid of a cluster's component (its binary's name is the first word of its command line). */
export function componentPid(cluster: Cluster, name: 'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kwok'): number | undefined {
  return recordedPids(cluster.dir).find((pid) => cmdline(pid).split('\0')[0]?.endsWith(`/${name}`));
}

/**
 * Stops the restored cluster's kwok. The population's nodes are plain Node objects no kwok
 * manages, but kwok watches every pod bound to any node and filters on its side: with 150,000
 * pods its watch falls behind under a few hundred deletes/s, the API server closes it ("Forcing
 * pods watcher close due to unresponsiveness") and kwok lists all 150,000 pods again, over and
 * over, in the middle of what is measured. No real cluster has such a client (a kubelet
 * watches its own node's pods). Its one node was Ready when the cluster started, and nothing
 * in the experiments needs it after that.
 */
export async function stopKwok(cluster: Cluster): Promise<boolean> {
  const pid = componentPid(cluster, 'kwok');
  if (pid === undefined) return false;
  await killGroups([pid], 5_000);
  return true;
}

/** Stops every component, etcd last and with time to close its database, leaving <dir>/etcd in place. */
async function stopKeepingEtcd(cluster: Cluster): Promise<void> {
  const etcd = componentPid(cluster, 'etcd');
  if (etcd === undefined) throw new Error('no etcd process in the cluster');
  await killGroups(
    recordedPids(cluster.dir).filter((pid) => pid !== etcd),
    10_000,
  );
  await killGroups([etcd], 120_000);
}

/** The cached snapshot of `size` pods, populated (and cached) first when there is none. */
export async function ensureSnapshot(size: number): Promise<Snapshot> {
  const dir = snapshotDir(size);
  const metaFile = join(dir, 'meta.json');
  if (existsSync(metaFile)) return { etcd: join(dir, 'etcd'), meta: JSON.parse(readFileSync(metaFile, 'utf8')) as SnapshotMeta, cached: true };
  console.log(`[scale-snapshot] populating ${size} pods for ${dir}`);
  const cluster = await startCluster({ name: `bench-snap-${size}`, kwokNodes: 1, controllerManagerArgs: PODGC_OFF });
  try {
    const kc = cluster.kubeConfig();
    const namespaces = await prepareCluster(kc);
    const { core, close } = unthrottled(kc);
    for (const name of IDENTITY_NAMESPACES) await core.createNamespace({ body: { metadata: { name } } });
    close();
    // The identities' ServiceAccounts and RBAC go into the snapshot; their tokens do not outlive this cluster.
    await functionIdentities(kc, cluster.kubeconfigPath, ...IDENTITY_NAMESPACES);
    const pop = await populate(kc, namespaces, size, 0);
    await stopKeepingEtcd(cluster);
    // Into a temporary directory first: a run cut short leaves no half snapshot under the real name.
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    cpSync(join(cluster.dir, 'etcd'), join(tmp, 'etcd'), { recursive: true });
    const meta: SnapshotMeta = {
      size,
      recipe: RECIPE_VERSION,
      population: { ...pop, writesPerSecond: Math.round(((pop.total + pop.failed + pop.succeeded) / pop.ms) * 1000) },
      populatedAt: new Date().toISOString(),
      etcdMiB: Math.round(treeBytes(join(tmp, 'etcd')) / 2 ** 20),
    };
    writeFileSync(join(tmp, 'meta.json'), JSON.stringify(meta, null, 2) + '\n');
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    return { etcd: join(dir, 'etcd'), meta, cached: false };
  } finally {
    await cluster.stop();
  }
}

/** A cluster restored from the snapshot, stopped (and its copy removed) after `run`. */
export function withRestored<T>(snapshot: Snapshot, name: string, run: (cluster: Cluster) => Promise<T>, options: Partial<ClusterOptions> = {}): Promise<T> {
  return withCluster(name, 1, run, { ...options, etcdDataFrom: snapshot.etcd });
}

/** CPU seconds a process has used so far (utime + stime from /proc/<pid>/stat, at 100 ticks/s); 0 once it is gone. */
/** A process's CPU from /proc, user and system (the kernel's work for it: its system calls) apart, in seconds. */
export function cpuSplit(pid: number): { user: number; system: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { user: 0, system: 0 };
  }
}

export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * Waits until the restored control plane is idle: after a start on 150,000 pods the API
 * server fills its watch cache and the controller manager and scheduler their informers, and
 * an experiment started meanwhile would measure their work too. Idle: two 2 s windows in a row
 * in which all components together used under a fifth of one core. Seconds waited.
 */
export async function settle(cluster: Cluster, maxSeconds = 240): Promise<number> {
  const t0 = performance.now();
  const pids = recordedPids(cluster.dir);
  const total = () => pids.reduce((n, pid) => n + cpuSeconds(pid), 0);
  let quiet = 0;
  let last = total();
  while (quiet < 2 && performance.now() - t0 < maxSeconds * 1000) {
    await new Promise((r) => setTimeout(r, 2000));
    const now = total();
    quiet = now - last < 0.4 ? quiet + 1 : 0;
    last = now;
  }
  return Math.round((performance.now() - t0) / 100) / 10;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * How an experiment on a restored cluster began: the cluster's start (the copy of the snapshot
 * included), the wait for it to go idle, and the machine's 1-minute load average then (anything
 * else running on this 2-core machine shows there, and moves every figure).
 */
export async function begin(cluster: Cluster) {
  const kwokStopped = await stopKwok(cluster);
  const settleSeconds = await settle(cluster);
  return { clusterReadySeconds: round1(cluster.readyMs / 1000), kwokStopped, settleSeconds, loadAverage1m: Math.round(loadavg()[0]! * 100) / 100 };
}

/** Every experiment starts from the whole backlog: a restore that lost pods would flatter every figure. */
export function restoredWhole(snapshot: Snapshot, failed: number): void {
  if (failed !== snapshot.meta.population.failed) throw new Error(`restored ${failed} Failed pods, the snapshot has ${snapshot.meta.population.failed}`);
}

/** The function identities again: their accounts are in the snapshot, their tokens are not. */
export const restoredIdentities = (cluster: Cluster) => functionIdentities(cluster.kubeConfig(), cluster.kubeconfigPath, ...IDENTITY_NAMESPACES);

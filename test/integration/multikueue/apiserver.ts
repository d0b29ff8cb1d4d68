// Stopping and restarting only a cluster's kube-apiserver: the worker is unreachable
// (connections refused) while its etcd keeps every object, and once back it is the same
// cluster with the same objects, as after a real outage. The command line is taken from
// /proc, so the restart uses exactly the ports, certificates and flags of the first start.
import { readFileSync } from 'node:fs';
import type { Cluster } from '../../harness/index.js';
import { waitFor } from '../../harness/index.js';
import { killGroups, recordedPids, spawnComponent } from '../../harness/processes.js';
import { kubeRequest } from '../../harness/kube-http.js';

function apiserverPid(cluster: Cluster): { pid: number; argv: string[] } {
  for (const pid of recordedPids(cluster.dir)) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (argv[0]?.endsWith('kube-apiserver')) return { pid, argv };
    } catch {
      // that process is gone (an earlier apiserver)
    }
  }
  throw new Error(`no running kube-apiserver for cluster ${cluster.name}`);
}

// /readyz answers before every CRD's storage is ready, and a CRD installed later (the JobSet
// case) can briefly re-initialize them (429 "storage is (re)initializing").
const STORAGE_PATHS = [
  '/readyz',
  '/apis/batch/v1/jobs?limit=1',
  '/apis/kueue.x-k8s.io/v1beta2/workloads?limit=1',
  '/apis/jobset.x-k8s.io/v1alpha2/jobsets?limit=1',
];

export async function storageReady(cluster: Cluster): Promise<void> {
  for (const path of STORAGE_PATHS)
    await waitFor(`${cluster.name} ${path}`, async () => (await kubeRequest(cluster.endpoint, 'GET', path)).status === 200, { timeoutMs: 90_000 });
}

export async function stopApiserver(cluster: Cluster): Promise<() => Promise<void>> {
  const { pid, argv } = apiserverPid(cluster);
  await killGroups([pid]);
  return async () => {
    spawnComponent(cluster.dir, 'kube-apiserver', argv[0]!, argv.slice(1), false);
    await storageReady(cluster);
  };
}

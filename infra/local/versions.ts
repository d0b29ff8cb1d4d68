// One place for the versions of the local control plane and where its binaries live, so the
// build script, the harness and the cluster CLI always agree on the cache directory.
import { homedir } from 'node:os';
import { join } from 'node:path';

// v1.37.2: serves KEP-4563's lifecycle.k8s.io/v1alpha1 (EvictionRequest, Eviction) behind the
// EvictionRequestAPI gate, which evacuation uses when served. Its go.mod says go 1.26.0, so Go
// 1.26 builds it without a toolchain switch. etcd and kwok versions follow from it (see
// infra/local/go). A new version is a new cache directory; old ones are never removed here.
export const K8S_VERSION = 'v1.37.2';
// build/dependencies.yaml of k8s.io/kubernetes@v1.37.2 pins etcd 3.7.0.
export const ETCD_VERSION = 'v3.7.0';
// Newest kwok release on the proxy; its go.mod says go 1.26.0, so it builds with Go 1.26.
export const KWOK_VERSION = 'v0.8.0';

export const BINARIES = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubectl', 'kwok'] as const;
export type Binary = (typeof BINARIES)[number];

export function cacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'kube-tidy');
}

export function controlPlaneDir(): string {
  return join(cacheRoot(), 'controlplane', `${K8S_VERSION}-${ETCD_VERSION}-${KWOK_VERSION}`);
}

export function binDir(): string {
  return join(controlPlaneDir(), 'bin');
}

export function binPath(name: Binary): string {
  return join(binDir(), name);
}

// Written last by the build, so a build cut short is redone on the next run.
export function stampPath(): string {
  return join(controlPlaneDir(), 'complete.stamp');
}

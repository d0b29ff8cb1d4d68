// Command lines of the control-plane components. Everything listens on 127.0.0.1 only;
// each cluster gets its own ports and directory, so clusters never see each other.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Credentials } from './credentials.js';

export interface Ports {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
}

export function etcdArgs(dir: string, ports: Ports): string[] {
  const client = `http://127.0.0.1:${ports.etcdClient}`;
  const peer = `http://127.0.0.1:${ports.etcdPeer}`;
  return [
    '--name=default',
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    // Test data is thrown away with the cluster; skipping fsync makes writes much faster.
    '--unsafe-no-fsync=true',
    '--log-level=warn',
  ];
}

/**
 * KEP-4563's API, alpha in v1.37: the EvictionRequestAPI gate (pkg/features/kube_features.go,
 * default off) adds Pod spec.evictionResponders and the storage of lifecycle.k8s.io/v1alpha1
 * evictionrequests and evictions (pkg/registry/lifecycle/rest), which as an alpha version is
 * served only when --runtime-config enables it. Both are needed; either alone serves nothing.
 */
export const EVICTION_REQUEST_API_ARGS = ['--feature-gates=EvictionRequestAPI=true', '--runtime-config=lifecycle.k8s.io/v1alpha1=true'];

export function apiserverArgs(dir: string, ports: Ports, creds: Credentials, extra: string[] = []): string[] {
  return [
    ...extra,
    `--etcd-servers=http://127.0.0.1:${ports.etcdClient}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    // v1.37 refuses a loopback advertise address for the endpoint reconciler (the kubernetes
    // Service's endpoints): "may not be in the loopback range". Everything here is on
    // 127.0.0.1 and nothing reaches the API server through that Service, so no reconciler.
    '--endpoint-reconciler-type=none',
    `--secure-port=${ports.apiserver}`,
    // The apiserver writes a self-signed CA + serving cert here; the harness trusts that CA.
    `--cert-dir=${join(dir, 'pki')}`,
    `--token-auth-file=${creds.tokenFile}`,
    '--authorization-mode=Node,RBAC',
    '--anonymous-auth=false',
    `--service-account-key-file=${creds.saPublicKey}`,
    `--service-account-signing-key-file=${creds.saPrivateKey}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    '--service-cluster-ip-range=10.96.0.0/16',
    // Without a node lifecycle controller nobody would lift the not-ready taint this adds.
    '--disable-admission-plugins=TaintNodesByCondition',
    '--profiling=false',
    '--v=1',
  ];
}

export function controllerManagerArgs(dir: string, creds: Credentials, caFile: string): string[] {
  return [
    `--kubeconfig=${join(dir, 'controller-manager.kubeconfig')}`,
    '--leader-elect=false',
    '--secure-port=0',
    // All default controllers (garbage collector, job, replicaset, namespace, serviceaccount,
    // serviceaccount-token, disruption, ...) except node lifecycle: kwok nodes send no
    // heartbeats, and tainting them NotReady would evict every test pod.
    '--controllers=*,-nodelifecycle',
    '--use-service-account-credentials=true',
    `--service-account-private-key-file=${creds.saPrivateKey}`,
    `--root-ca-file=${caFile}`,
    '--profiling=false',
    '--v=1',
  ];
}

export function schedulerArgs(dir: string, profiles?: unknown[]): string[] {
  const kubeconfig = join(dir, 'scheduler.kubeconfig');
  let config: string[] = [];
  if (profiles) {
    // JSON is YAML; the connection settings repeat the flags so the file stands on its own.
    const file = join(dir, 'scheduler-config.yaml');
    const body = {
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      kind: 'KubeSchedulerConfiguration',
      clientConnection: { kubeconfig },
      leaderElection: { leaderElect: false },
      profiles,
    };
    writeFileSync(file, JSON.stringify(body, null, 2));
    config = [`--config=${file}`];
  }
  return [...config, `--kubeconfig=${kubeconfig}`, '--leader-elect=false', '--secure-port=0', '--profiling=false', '--v=1'];
}

export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

export function kwokArgs(dir: string, stagesFile: string): string[] {
  return [
    `--kubeconfig=${join(dir, 'kwok.kubeconfig')}`,
    `--config=${stagesFile}`,
    '--manage-all-nodes=false',
    `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
  ];
}

// What the bridge tests share: a labelled pod builder, the sink's requests decoded, and a
// bridge in-process against the shared cluster, quiet unless a test reads its log.
import type { V1Pod } from '@kubernetes/client-node';
import { decodeEvent, type InternalEvent } from '../../../shared/cloudevents/index.js';
import { startBridge, type Bridge, type BridgeOptions } from '../../../shared/hosts/bridge/index.js';
import type { Received, TestSink } from '../../fixtures/http-sink.js';
import { sharedCluster } from '../../harness/index.js';

export const LABEL = 'kube-tidy.dev/bridge-case';

export function pod(name: string, testCase: string, extra: Partial<V1Pod['spec']> = {}): V1Pod {
  return {
    metadata: { name, labels: { [LABEL]: testCase } },
    spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }], ...extra },
  };
}

export function bridgeFor(sink: TestSink, namespace: string, testCase: string, more: Partial<BridgeOptions> = {}): Promise<Bridge> {
  const log: string[] = [];
  const push = (level: string) => (fields: object, msg: string) => log.push(JSON.stringify({ level, msg, ...fields }));
  return startBridge({
    kubeConfig: sharedCluster().kubeConfig(),
    sink: sink.url,
    namespace,
    labelSelector: `${LABEL}=${testCase}`,
    statsIntervalMs: 0,
    log: { debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') },
    ...more,
  });
}

export function decoded(r: Received): InternalEvent {
  return decodeEvent({ headers: r.headers, body: r.body });
}

/** Requests the sink accepted, for one object name. */
export function acceptedFor(sink: TestSink, name: string): Received[] {
  return sink.received.filter((r) => r.status < 300 && r.headers['ce-name'] === name);
}

// `kube-tidy run` bounds the Events of the objects it removes as the functions do: a run that
// deletes many expired ConfigMaps of one namespace writes one Event on the first and one that
// counts the rest (an events.k8s.io/v1 series about the namespace, written before the command
// answers), not one per ConfigMap. The CLI as a child process against the shared real cluster.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { REPORTING_CONTROLLER } from '../../../shared/model/keys.js';
import { runCli } from '../../harness/cli-process.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';

const ns = testNamespace('ttl-cli-events');
const cluster = sharedCluster();
const core = () => cluster.kubeConfig().makeApiClient(CoreV1Api);
const MANY = 25;
let policy: string;

beforeAll(async () => {
  policy = join(mkdtempSync(join(tmpdir(), 'kube-tidy-ttl-cli-events-')), 'policy.yaml');
  const rule = {
    name: 'expired-configs',
    mode: 'delete',
    kinds: [{ version: 'v1', kind: 'ConfigMap' }],
    sources: ['cleanup.kyverno.io/ttl'],
    namespaces: { include: [ns.name] },
  };
  writeFileSync(policy, stringify({ apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy', kubeTidy: { ttl: [rule] } }));
  for (let i = 0; i < MANY; i++)
    await core().createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: `cm-${i}`, labels: { 'cleanup.kyverno.io/ttl': '2020-01-01' } } } });
}, 60_000);

describe('kube-tidy run: the Events of many objects removed', () => {
  it(`deleting ${MANY} ConfigMaps of a namespace writes two Events there, one counting ${MANY}`, async () => {
    const args = ['run', '--kubeconfig', cluster.kubeconfigPath, '--namespace', ns.name, '--brakes-namespace', `${ns.name}-tidy`, '--policy', policy];
    const r = await runCli([...args, '--yes', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect((await core().listNamespacedConfigMap({ namespace: ns.name, labelSelector: 'cleanup.kyverno.io/ttl' })).items).toEqual([]);
    const events = (await cluster.kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns.name })).items.filter(
      (e) => e.reportingController === REPORTING_CONTROLLER,
    );
    expect(events.map((e) => e.reason).sort()).toEqual(['Deleted', 'ObjectsDeleted']);
    expect(events.find((e) => e.reason === 'ObjectsDeleted')?.series?.count).toBe(MANY);
  }, 120_000);
});

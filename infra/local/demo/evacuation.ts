// `npm run demo:evacuation`: evacuations on a local control plane. A cluster starts with the
// project's minimal KubeVirt CRDs, a real admission webhook for pods/eviction answering as
// KubeVirt does, and a small migration controller (both the test ones, in this process); the
// evacuation function runs as its own process (the production bundle) and gets a tick every second, as a PingSource
// would send. Six VMs are marked for evacuation; each one's path is printed as it happens.
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ANNOTATIONS } from '../../../shared/evacuation/core/annotations.js';
import { startCluster } from '../../../test/harness/cluster.js';
import { pingRequest } from '../../../test/fixtures/events/requests.js';
import { waitFor } from '../../../test/harness/wait.js';
import { startBundleProcess } from '../../../test/harness/function-process.js';
import { BEHAVIOUR, startMigrationController } from '../../../test/integration/evacuation/controller.js';
import { startWebhook } from '../../../test/integration/evacuation/webhook.js';
import { say } from './report.js';

const NS = 'vms';
const POLICY = fileURLToPath(new URL('./policy.yaml', import.meta.url));
const CRDS = fileURLToPath(new URL('../../../test/fixtures/kubevirt', import.meta.url));
// name -> what the migration controller will do with its migrations
const VMS: [string, string, string][] = [
  ['web-1', 'succeed', 'migrates on the first attempt'],
  ['web-2', 'succeed', 'migrates on the first attempt'],
  ['db-1', 'succeed', 'migrates on the first attempt'],
  ['batch-1', 'fail-1', 'fails once, retried after a backoff, migrates'],
  ['legacy-1', 'fail', 'fails on every attempt: reported Failed'],
  ['stuck-1', 'hang', 'never finishes: aborted at the 8 s deadline'],
];

async function main(): Promise<void> {
  say('starting a local control plane with the kubevirt.io/v1 CRDs, the eviction webhook and a migration controller');
  // The direct path (the Eviction API and KubeVirt's webhook), as v1.37 runs by default: lifecycle.k8s.io off.
  const cluster = await startCluster({ name: 'demo-evacuation', kwokNodes: 2, crdDirs: [CRDS], evictionRequestApi: false });
  const kc = cluster.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const stops: (() => Promise<unknown>)[] = [() => cluster.stop()];
  try {
    await core.createNamespace({ body: { metadata: { name: NS } } });
    await waitFor('default ServiceAccount', () => core.readNamespacedServiceAccount({ namespace: NS, name: 'default' }).then(() => true));
    const webhook = await startWebhook(kc, NS);
    stops.unshift(() => webhook.stop());
    const controller = await startMigrationController(kc, NS);
    stops.unshift(() => controller.stop());
    const fn = await startBundleProcess('evacuation', {
      POLICY_FILE: POLICY,
      KUBECONFIG: cluster.kubeconfigPath,
      EVACUATION_NAMESPACE: NS,
      EVACUATION_TIMEOUT_SECONDS: '8',
      EVACUATION_BACKOFF_SECONDS: '2',
      EVACUATION_MAX_ATTEMPTS: '2',
      LOG_LEVEL: 'warn',
    });
    stops.unshift(() => fn.stop());
    for (const [name, behaviour, story] of VMS) {
      const vmi = (await custom.createNamespacedCustomObject({
        group: 'kubevirt.io',
        version: 'v1',
        plural: 'virtualmachineinstances',
        namespace: NS,
        body: { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', metadata: { name, labels: { [BEHAVIOUR]: behaviour } }, spec: {} },
      })) as { metadata: { uid: string } };
      await core.createNamespacedPod({
        namespace: NS,
        body: {
          metadata: {
            name: `virt-launcher-${name}`,
            labels: { 'kubevirt.io': 'virt-launcher', 'kubevirt.io/created-by': vmi.metadata.uid },
            annotations: { [ANNOTATIONS.request]: 'demo' },
            ownerReferences: [{ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', name, uid: vmi.metadata.uid, controller: true }],
          },
          spec: { containers: [{ name: 'compute', image: 'registry.k8s.io/pause:3.10' }] },
        },
      });
      say(`requested     ${NS}/virt-launcher-${name}  (${story})`);
    }
    const shown = new Map<string, string>();
    const ended = new Map<string, string>();
    let maxCluster = 0;
    let maxNode = 0;
    const t0 = Date.now();
    while (ended.size < VMS.length && Date.now() - t0 < 120_000) {
      const answer = (await (await fetch(fn.url, { method: 'POST', ...pingRequest('evacuation') })).json()) as {
        results?: { pod: string; outcome: string; why: string; attempt?: number }[];
      };
      for (const r of answer.results ?? []) {
        const line = `${r.outcome.padEnd(13)} ${r.pod}  ${r.attempt ? `attempt ${r.attempt}: ` : ''}${r.why}`;
        if (shown.get(r.pod) !== line && r.outcome !== 'nothing-to-do') say(line);
        shown.set(r.pod, line);
        if (['succeeded', 'failed', 'timedout', 'cancelled'].includes(r.outcome)) ended.set(r.pod, `${r.outcome}: ${r.why}`);
      }
      // A migrated VM's launcher pod is deleted by KubeVirt: its evacuation ends with it.
      const pods = (await core.listNamespacedPod({ namespace: NS })).items;
      for (const [name] of VMS) {
        const key = `${NS}/virt-launcher-${name}`;
        if (!ended.has(key) && !pods.some((p) => p.metadata?.name === `virt-launcher-${name}`)) {
          ended.set(key, 'succeeded: migrated, the launcher pod is gone');
          say(`${'succeeded'.padEnd(13)} ${key}  migrated; KubeVirt deleted the source pod`);
        }
      }
      const started = pods.filter((p) => p.metadata?.annotations?.[ANNOTATIONS.state] === 'Started');
      maxCluster = Math.max(maxCluster, started.length);
      for (const n of new Set(started.map((p) => p.spec?.nodeName))) maxNode = Math.max(maxNode, started.filter((p) => p.spec?.nodeName === n).length);
      await new Promise((r) => setTimeout(r, 1000)); // the schedule: one tick a second
    }
    say('');
    say(`${'pod'.padEnd(28)} ${'migrations'.padEnd(11)} end`);
    for (const [name] of VMS)
      say(
        `${`${NS}/virt-launcher-${name}`.padEnd(28)} ${String(controller.created.get(name)?.length ?? 0).padEnd(11)} ${ended.get(`${NS}/virt-launcher-${name}`) ?? 'not ended'}`,
      );
    say(`most in flight seen at a tick: ${maxCluster} in the cluster (limit 5), ${maxNode} from one node (limit 2)`);
  } finally {
    for (const stop of stops) await stop().catch(() => {});
  }
}

await main();
process.exit(0);

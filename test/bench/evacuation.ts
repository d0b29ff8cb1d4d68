// Bench `evacuation`: evacuations carried to an end per minute with the limits holding, and
// the API requests kube-tidy makes per evacuation. One cluster (4 kwok nodes) with the test
// KubeVirt CRDs, the test admission webhook (pods/eviction, answering as KubeVirt) and the test
// migration controller; 40 launcher pods marked for evacuation; the function's tick run back
// to back in this process (as a frequent schedule would), its API requests counted at the client.
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { Notifier } from '../../shared/notify/notifier.js';
import { pino } from 'pino';
import { ANNOTATIONS } from '../../shared/evacuation/core/annotations.js';
import { readEvacuationConfig } from '../../shared/evacuation/config.js';
import { SlotStore, tick, type EvacuationDeps } from '../../shared/evacuation/index.js';
import { kubeClients } from '../../shared/kube/index.js';
import { ClusterWriter } from '../../shared/kube/writer.js';
import { installCrds, waitFor } from '../harness/index.js';
import { startMigrationController } from '../integration/evacuation/controller.js';
import { startWebhook } from '../integration/evacuation/webhook.js';
import { withCluster } from './cluster.js';
import { MetricsRecorder } from '../../shared/metrics/recorder.js';

const VMS = 40;
const NS = 'bench-evac';
const CRDS = fileURLToPath(new URL('../fixtures/kubevirt', import.meta.url));

export async function runEvacuationBench(): Promise<object> {
  return withCluster('bench-evacuation', 4, async (cluster) => {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    await installCrds(cluster, CRDS);
    await core.createNamespace({ body: { metadata: { name: NS } } });
    await waitFor('default ServiceAccount', () => core.readNamespacedServiceAccount({ namespace: NS, name: 'default' }).then(() => true));
    const webhook = await startWebhook(kc, NS);
    const controller = await startMigrationController(kc, NS);
    try {
      for (let i = 0; i < VMS; i++) {
        const vmi = (await custom.createNamespacedCustomObject({
          group: 'kubevirt.io',
          version: 'v1',
          plural: 'virtualmachineinstances',
          namespace: NS,
          body: { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', metadata: { name: `vm${i}` }, spec: {} },
        })) as { metadata: { uid: string } };
        await core.createNamespacedPod({
          namespace: NS,
          body: {
            metadata: {
              name: `virt-launcher-vm${i}`,
              labels: { 'kubevirt.io': 'virt-launcher', 'kubevirt.io/created-by': vmi.metadata.uid },
              annotations: { [ANNOTATIONS.request]: 'bench' },
              ownerReferences: [{ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', name: `vm${i}`, uid: vmi.metadata.uid, controller: true }],
            },
            spec: { containers: [{ name: 'compute', image: 'registry.k8s.io/pause:3.10' }] },
          },
        });
      }
      await waitFor(
        'launcher pods Running',
        async () => (await core.listNamespacedPod({ namespace: NS })).items.filter((p) => p.status?.phase === 'Running').length === VMS,
        { timeoutMs: 120_000 },
      );
      // The webhook registration is picked up asynchronously; kube-tidy's first evictions must meet it.
      await waitFor('webhook live', async () => {
        await core
          .createNamespacedPodEviction({
            namespace: NS,
            name: 'virt-launcher-vm0',
            body: { metadata: { name: 'virt-launcher-vm0', namespace: NS } },
            dryRun: 'All',
          })
          .catch(() => {});
        return webhook.calls > 0;
      });

      let requests = 0;
      const count = () => void requests++;
      const config = readEvacuationConfig({ EVACUATION_NAMESPACE: NS, EVACUATION_SCOPE_NAMESPACE: NS });
      const clients = kubeClients(kc, { timeoutMs: 20_000, onRequest: count });
      const writer = new ClusterWriter(clients, { dryRun: false, recordEvents: true, protectedNamespaces: ['kube-system'] });
      const d: EvacuationDeps = {
        core: clients.core,
        custom: clients.custom,
        writer,
        slotStore: new SlotStore(clients.core, writer, { namespace: config.namespace, legacyNamespace: config.namespace, now: Date.now }),
        config,
        now: Date.now,
        log: pino({ level: 'silent' }),
        notifier: Notifier.off(),
        metrics: MetricsRecorder.off(),
      };
      let maxCluster = 0;
      let maxNode = 0;
      let samples = 0;
      let ticks = 0;
      let running = true;
      // The limits as the cluster shows them, sampled beside the ticks (not counted as kube-tidy's
      // requests): launcher pods in state Started, in all and per node.
      const sampler = (async () => {
        while (running) {
          const inFlight = (await core.listNamespacedPod({ namespace: NS })).items.filter((p) => p.metadata?.annotations?.[ANNOTATIONS.state] === 'Started');
          samples++;
          maxCluster = Math.max(maxCluster, inFlight.length);
          const perNode = new Map<string, number>();
          for (const p of inFlight) perNode.set(p.spec!.nodeName!, (perNode.get(p.spec!.nodeName!) ?? 0) + 1);
          maxNode = Math.max(maxNode, ...perNode.values(), 0);
        }
      })();
      const t0 = Date.now();
      try {
        for (;;) {
          const summary = await tick(d);
          ticks++;
          if (summary.pods === 0 && (await core.listNamespacedPod({ namespace: NS })).items.length === 0) break;
          if (Date.now() - t0 > 600_000) throw new Error('evacuations did not end within 10 minutes');
        }
      } finally {
        running = false;
        await sampler;
      }
      const ms = Date.now() - t0;
      clients.close();
      const migrationsCreated = [...controller.created.values()].reduce((n, l) => n + l.length, 0);
      return {
        setup: `${VMS} launcher pods on 4 kwok nodes, limits ${config.limits.perCluster}/cluster ${config.limits.perNode}/node, test webhook + test migration controller (7 phase writes per migration)`,
        evacuations: VMS,
        migrationsCreated,
        seconds: +(ms / 1000).toFixed(1),
        evacuationsPerMinute: +((VMS * 60_000) / ms).toFixed(1),
        maxInFlightCluster: maxCluster,
        maxInFlightNode: maxNode,
        limitSamples: samples,
        ticks,
        apiRequestsPerEvacuation: +(requests / VMS).toFixed(1),
        apiRequestsPerTick: +(requests / ticks).toFixed(1),
      };
    } finally {
      await controller.stop();
      await webhook.stop();
    }
  });
}

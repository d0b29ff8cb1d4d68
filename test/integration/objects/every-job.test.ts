// With the watch as it ships, every finished Job reaches the object rules by event, not only
// Kueue's. The Job selector is read from what is deployed: the Knative manifests'
// ApiServerSource (the bridge POSTs its CloudEvents to objectUpdated over HTTP, as Knative
// does) and the chart's values.yaml `selectors` (the standalone watch: the same bridge with the
// standalone program's in-process dispatch). A finished Job with no Kueue label, matched by a
// `kind: Job, minAge: 0s` rule, is removed on its own event.
//
// No clock decides the verdict: the bridge delivers one event at a time in watch order
// (concurrency 1), so once a marker Job created after the plain Job was stored Complete (or
// already removed) has been delivered, the plain Job's Complete event, if the watch saw it at all, was handled before it.
// The marker carries kueue.x-k8s.io/queue-name, which the old default selector also watched.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api } from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectUpdated, type ObjectUpdatedParts } from '../../../functions/object-updated.js';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { startBridge, type InProcessSink, type Logger } from '../../../shared/hosts/bridge/index.js';
import { selectorString, type LabelSelector } from '../../../shared/hosts/standalone/core/selector.js';
import type { Served } from '../../../shared/hosts/server/setup.js';
import { inProcessDispatch } from '../../../shared/hosts/standalone/dispatch.js';
import { routesOf } from '../../../shared/hosts/standalone/routing.js';
import { QUEUE_NAME_LABEL } from '../../../shared/multikueue/index.js';
import type { Runtime } from '../../../shared/runtime/runtime.js';
import { nodeHttpTarget } from '../../../shared/serve/http/node-http.js';
import { senderAuthOf } from '../../../shared/serve/http/senders.js';
import { policyDoc } from '../../fixtures/policy.js';
import { finishedJob, sharedCluster, testNamespace, waitFor } from '../../harness/index.js';
import { runtimeFor } from '../functions/setup.js';

const ns = testNamespace('objects-every-job');
const batch = () => sharedCluster().kubeConfig().makeApiClient(BatchV1Api);

type Source = { kind: string; spec: { resources: { kind: string; selector?: LabelSelector }[] } };

/** The Job selector of the ApiServerSource the Knative manifests ship. */
function knativeJobSelector(): string {
  const file = join(REPO_ROOT, 'infra', 'knative', 'manifests', '40-eventing.yaml');
  const source = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Source)
    .find((o) => o.kind === 'ApiServerSource')!;
  return selectorString(source.spec.resources.find((r) => r.kind === 'Job')!.selector);
}

/** The Job selector of the chart's values (STANDALONE_SELECTORS in standalone mode, the source's in knative mode). */
function chartJobSelector(): string {
  const values = parse(readFileSync(join(REPO_ROOT, 'infra', 'helm', 'kube-tidy', 'values.yaml'), 'utf8')) as { selectors: Record<string, LabelSelector> };
  return selectorString(values.selectors.Job);
}

// The rule selects any finished Job in this namespace: no label asked for.
const policy = () =>
  policyDoc([{ name: 'RemoveFailedPods', args: { namespaces: { include: ['nothing-here'] } } }], {
    top: { kubeTidy: { objects: [{ name: 'finished-jobs', kind: 'Job', minAge: '0s', mode: 'delete', namespaces: { include: [ns.name] } }] } },
  });

/** Gone, or going (kube-tidy's delete sets a deletionTimestamp until the Job's own finalizers, if any, are done). */
const removed = (name: string) =>
  batch()
    .readNamespacedJob({ namespace: ns.name, name })
    .then(
      (j) => Boolean(j.metadata?.deletionTimestamp),
      (e: { code?: number }) => {
        if (e?.code === 404) return true;
        throw e;
      },
    );

const completeOrGone = (name: string): Promise<true | undefined> =>
  batch()
    .readNamespacedJob({ namespace: ns.name, name })
    .then(
      (j) => (j.metadata?.deletionTimestamp || j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? true : undefined),
      (e: { code?: number }) => {
        if (e?.code === 404) return true;
        throw e;
      },
    );

/** The bridge's log: the names of the objects whose events were delivered. */
function deliveries(): { log: Logger; names: string[] } {
  const names: string[] = [];
  const quiet = () => undefined;
  const info = (fields: object, msg: string) => {
    if (msg !== 'delivered') return;
    const f = fields as { name?: string; subject?: string };
    names.push(f.name ?? f.subject?.split('/').pop() ?? '');
  };
  return { log: { debug: quiet, info, warn: quiet, error: quiet }, names };
}

describe('with the shipped selectors, a finished Job without a Kueue label is removed on its event', () => {
  let rt: Runtime;
  let parts: ObjectUpdatedParts;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    rt = await runtimeFor(policy(), { DRY_RUN: 'false' });
    parts = await objectUpdated.setup(rt);
    server = createServer(nodeHttpTarget(objectUpdated, parts, rt, { auth: senderAuthOf(rt), maxBytes: rt.config.MAX_BODY_BYTES }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => {
    parts?.stop();
    server?.close();
  });

  const standaloneSink = (): InProcessSink => {
    const served = [{ spec: objectUpdated, parts } as unknown as Served];
    const dispatch = inProcessDispatch({ served, routes: routesOf(served), rt, log: rt.log, holds: () => true });
    return { name: 'in-process: objectUpdated', send: dispatch.event };
  };

  for (const c of [
    { mode: 'knative (the manifests, over HTTP)', selector: knativeJobSelector, sink: () => url },
    { mode: "standalone (the chart's values, in process)", selector: chartJobSelector, sink: standaloneSink },
  ]) {
    it(
      c.mode,
      async () => {
        const tag = c.mode.split(' ')[0]!;
        const seen = deliveries();
        const labelSelector = c.selector();
        const bridge = await startBridge({
          kubeConfig: sharedCluster().kubeConfig(),
          sink: c.sink(),
          kinds: ['Job'],
          namespace: ns.name,
          ...(labelSelector ? { labelSelector } : {}),
          concurrency: 1,
          statsIntervalMs: 0,
          log: seen.log,
        });
        try {
          // Complete as stored, or already removed on that very event (minAge 0s: faster than a poll).
          await finishedJob(batch(), ns.name, `plain-${tag}`, { noWait: true });
          await waitFor(`plain-${tag} Complete or removed`, () => completeOrGone(`plain-${tag}`), { timeoutMs: 90_000 });
          const marker = `marker-${tag}`;
          await finishedJob(batch(), ns.name, marker, { labels: { [QUEUE_NAME_LABEL]: 'user-queue' }, noWait: true });
          await waitFor(`${marker}'s event delivered`, async () => seen.names.includes(marker) || undefined, { timeoutMs: 60_000 });
          expect(seen.names, `the watch (selector "${labelSelector}") delivered the plain Job's events`).toContain(`plain-${tag}`);
          expect(await removed(`plain-${tag}`), 'the plain Job removed on its event').toBe(true);
        } finally {
          await bridge.stop({ deadlineMs: 0 });
        }
      },
      180_000,
    );
  }
});

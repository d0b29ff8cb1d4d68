// TTL on any kind on the sweep's path: the `sweep` function over HTTP, its own runtime on a clock
// three hours ahead (the runtime's injectable `now`), a policy of ttl rules only. The sweep's
// answer carries the ttl rules' results beside the pods'; kube-janitor's documented example (a
// namespace with `janitor/ttl: 2h`) goes, one with `janitor/expires` in the future stays; the
// Reports are written (none inside the namespace being deleted, which would refuse it).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweep } from '../../../functions/sweep.js';
import { startRuntime, type Runtime } from '../../../shared/runtime/runtime.js';
import { installOpenReportsCrds, sharedCluster, testNamespace } from '../../harness/index.js';
import { pingRequest, send, serve } from '../functions/setup.js';

const ns = testNamespace('ttl-sweep');
const core = () => sharedCluster().kubeConfig().makeApiClient(CoreV1Api);
const names = () => ({ expired: `${ns.name}-2h`, later: `${ns.name}-later` });
let rt: Runtime | undefined;

beforeAll(async () => {
  // The sweep writes Reports where OpenReports is served: always here, whichever test ran before.
  await installOpenReportsCrds(sharedCluster());
  const { expired, later } = names();
  await core().createNamespace({ body: { metadata: { name: expired, annotations: { 'janitor/ttl': '2h' } } } });
  // kube-janitor's absolute form, a day after the sweep's clock.
  const tomorrow = new Date(Date.now() + 27 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  await core().createNamespace({ body: { metadata: { name: later, annotations: { 'janitor/expires': tomorrow } } } });
});

afterAll(async () => {
  rt?.brakes().close();
  for (const name of Object.values(names()))
    await core()
      .deleteNamespace({ name })
      .catch(() => undefined);
});

describe('the sweep runs the ttl rules', () => {
  it("deletes kube-janitor's expired namespace and keeps the one not yet due, said in its answer", async () => {
    const { expired, later } = names();
    const policy = {
      apiVersion: 'descheduler/v1alpha2',
      kind: 'DeschedulerPolicy',
      kubeTidy: {
        ttl: [{ name: 'janitor-namespaces', mode: 'delete', kinds: [{ version: 'v1', kind: 'Namespace' }], namespaces: { include: [expired, later] } }],
      },
    };
    const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-ttl-sweep-')), 'policy.json');
    writeFileSync(file, JSON.stringify(policy));
    rt = await startRuntime(
      { POLICY_FILE: file, KUBECONFIG: sharedCluster().kubeconfigPath, BRAKES_NAMESPACE: ns.name, DRY_RUN: 'false' },
      { log: pino({ level: 'silent' }), now: () => Date.now() + 3 * 3_600_000 },
    );
    const r = await send(serve(sweep, rt), pingRequest());
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const objects = (r.body as { objects: { results: { kind: string; name: string; outcome: string }[]; eligible: { name: string }[] } }).objects;
    expect(objects.results.map((x) => `${x.kind} ${x.name}: ${x.outcome}`)).toEqual([`Namespace ${expired}: deleted`]);
    expect(objects.eligible.map((x) => x.name)).toEqual([later]);
    const terminating = await core()
      .readNamespace({ name: expired })
      .then(
        (n) => n.metadata?.deletionTimestamp !== undefined,
        () => true,
      );
    expect(terminating, `${expired} is being deleted`).toBe(true);
    expect((await core().readNamespace({ name: later })).metadata?.deletionTimestamp).toBeUndefined();
  }, 90_000);
});

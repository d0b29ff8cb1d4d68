// Every manifest kube-tidy ships, applied to a real API server with the Knative CRDs
// installed, as a server-side dry run with strict field validation: schemas, required
// fields, types and unknown fields are checked by the API server, nothing is persisted.
// (Knative Serving and Eventing controllers are not running, so nothing would reconcile:
// the dry run is the test.) A deliberately broken manifest shows the check refuses.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDeclaration, REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { crdSchemas, undeclared } from './crd-fields.js';
import { installCrds, kubectl, sharedCluster, upstreamCrdsDir } from '../../harness/index.js';

const cluster = sharedCluster();
const decl = readDeclaration();
const tmp = mkdtempSync(join(tmpdir(), 'kube-tidy-dry-run-'));
const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
const created: string[] = [];

const dryRun = (file: string) =>
  kubectl(cluster, ['apply', '--server-side', '--dry-run=server', '--validate=strict', '--field-manager=kube-tidy-test', '-f', file]);

beforeAll(async () => {
  await installCrds(cluster, upstreamCrdsDir('knative'));
  // The committed manifests name their namespaces; a dry run cannot create a namespace and
  // then put objects in it, so these two exist for real (empty) during the test.
  for (const name of [decl.provider.namespace, decl.provider.kueueNamespace]) {
    try {
      await core.readNamespace({ name });
    } catch {
      await core.createNamespace({ body: { metadata: { name } } });
      created.push(name);
    }
  }
}, 180_000);

afterAll(async () => {
  for (const name of created) await core.deleteNamespace({ name });
});

describe('server-side dry run of the committed Knative manifests', () => {
  const dir = join(REPO_ROOT, decl.deployment.targets.knative);
  for (const file of readdirSync(dir).sort()) {
    it(`accepts every object in ${file}`, async () => {
      const out = await dryRun(join(dir, file));
      expect(out).toMatch(/(serverside-applied|created|configured|unchanged) \(server dry run\)/);
      expect(out).not.toMatch(/error/i);
    });
  }
});

describe('server-side dry run of the GCP Cloud Run services against the Knative Service schema', () => {
  const dir = join(REPO_ROOT, decl.deployment.targets.gcp, 'services');
  for (const file of readdirSync(dir).sort()) {
    it(`accepts ${file} (Cloud Run's service YAML is a Knative Service)`, async () => {
      const text = readFileSync(join(dir, file), 'utf8').replaceAll('${PROJECT_ID}', 'my-project').replaceAll('${REGION}', 'europe-west1');
      const svc = parse(text) as { metadata: Record<string, unknown> };
      svc.metadata.namespace = decl.provider.namespace;
      const path = join(tmp, file);
      writeFileSync(path, stringify(svc));
      expect(await dryRun(path)).toMatch(/serverside-applied \(server dry run\)/);
    });
  }
});

describe('fields the Knative CRDs declare (their specs preserve unknown fields, so the dry run alone keeps typos)', () => {
  const schemas = crdSchemas(upstreamCrdsDir('knative'));
  const dir = join(REPO_ROOT, decl.deployment.targets.knative);
  const objects = readdirSync(dir).flatMap((f) =>
    parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as { apiVersion: string; kind: string; metadata: { name: string } }),
  );
  const knative = objects.filter((o) => schemas.has(`${o.apiVersion} ${o.kind}`));

  it('covers every Knative object shipped', () => {
    expect(knative.map((o) => o.kind).sort()).toEqual(
      objects
        .filter((o) => o.apiVersion.includes('knative.dev'))
        .map((o) => o.kind)
        .sort(),
    );
    expect(new Set(knative.map((o) => o.kind))).toEqual(new Set(['Service', 'Broker', 'ApiServerSource', 'PingSource', 'Trigger']));
  });

  for (const o of knative) {
    it(`${o.kind} ${o.metadata.name} sets only declared fields`, () => {
      expect(undeclared(o, schemas.get(`${o.apiVersion} ${o.kind}`)!)).toEqual([]);
    });
  }

  it('catches a misspelt Trigger field the API server keeps', async () => {
    const bad = {
      apiVersion: 'eventing.knative.dev/v1',
      kind: 'Trigger',
      metadata: { name: 'bad', namespace: decl.provider.namespace },
      spec: { broker: 'kube-tidy', filter: { atributes: { type: 'x' } }, subscriber: { uri: 'http://x/' } },
    };
    const path = join(tmp, 'typo.yaml');
    writeFileSync(path, stringify(bad));
    expect(await dryRun(path)).toMatch(/server dry run/);
    expect(undeclared(bad, schemas.get('eventing.knative.dev/v1 Trigger')!)).toEqual(['spec.filter.atributes']);
  });
});

describe('the dry run has teeth where the schema is typed', () => {
  for (const [sentence, doc, expected] of [
    [
      'a Knative Service whose containerConcurrency is text is refused',
      {
        apiVersion: 'serving.knative.dev/v1',
        kind: 'Service',
        metadata: { name: 'bad' },
        spec: { template: { spec: { containerConcurrency: 'twenty', containers: [{ image: 'x' }] } } },
      },
      /containerConcurrency/,
    ],
    [
      'a Trigger whose retry count is text is refused',
      {
        apiVersion: 'eventing.knative.dev/v1',
        kind: 'Trigger',
        metadata: { name: 'bad' },
        spec: { broker: 'kube-tidy', delivery: { retry: 'five' }, subscriber: { uri: 'http://x/' } },
      },
      /retry/,
    ],
    [
      'a ClusterRole with an unknown rule field is refused',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'kube-tidy-bad' },
        rules: [{ apiGroups: [''], resources: ['pods'], verb: ['get'] }],
      },
      /rules\[0\]\.verb: field not declared in schema|unknown field "rules\[0\]\.verb"/,
    ],
  ] as const) {
    it(sentence, async () => {
      const path = join(tmp, 'bad.yaml');
      const metadata = doc.kind === 'ClusterRole' ? doc.metadata : { ...doc.metadata, namespace: decl.provider.namespace };
      writeFileSync(path, stringify({ ...doc, metadata }));
      await expect(dryRun(path)).rejects.toThrow(expected);
    });
  }
});

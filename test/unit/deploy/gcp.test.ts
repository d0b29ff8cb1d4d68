// The GCP path, validated as far as this machine allows (no gcloud, no network): the specs
// against schemas written from the Cloud Scheduler and Eventarc REST references, the Cloud
// Run services for what kube-tidy needs, and the deploy script for syntax and coverage. The
// Cloud Run YAML is also dry-run applied against the Knative Service CRD (integration tests).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { kebab, readDeclaration, REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { renderGcp } from '../../../infra/gcp/render.js';

const decl = readDeclaration();
const gcp = renderGcp(decl);
const dir = join(REPO_ROOT, decl.deployment.targets.gcp);
const script = readFileSync(join(dir, 'deploy.sh'), 'utf8');

const duration = z.string().regex(/^\d+(\.\d+)?s$/);
// https://cloud.google.com/scheduler/docs/reference/rest/v1/projects.locations.jobs
const SchedulerJob = z.strictObject({
  name: z.string().regex(/^projects\/[^/]+\/locations\/[^/]+\/jobs\/[A-Za-z0-9_-]{1,500}$/),
  schedule: z.string().regex(/^(\S+\s+){4}\S+$/),
  timeZone: z.string().min(1),
  attemptDeadline: duration.refine((d) => parseFloat(d) >= 15 && parseFloat(d) <= 1800, 'HTTP targets allow 15 s to 30 min'),
  retryConfig: z.strictObject({ retryCount: z.number().int().min(0).max(5), minBackoffDuration: duration, maxBackoffDuration: duration }),
  httpTarget: z.strictObject({
    uri: z.string().regex(/^https:\/\//),
    httpMethod: z.enum(['POST', 'GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']),
    headers: z.record(z.string(), z.string()),
    body: z.base64(),
    oidcToken: z.strictObject({ serviceAccountEmail: z.string().regex(/@.+\.iam\.gserviceaccount\.com$/), audience: z.string() }),
  }),
});
// https://cloud.google.com/eventarc/docs/reference/rest/v1/projects.locations.triggers
const EventarcTrigger = z.strictObject({
  name: z.string().regex(/^projects\/[^/]+\/locations\/[^/]+\/triggers\/[a-z][a-z0-9-]{0,62}$/),
  eventFilters: z.array(z.strictObject({ attribute: z.string(), value: z.string() })).min(1),
  destination: z.strictObject({ cloudRun: z.strictObject({ service: z.string(), region: z.string(), path: z.string().startsWith('/') }) }),
  transport: z.strictObject({ pubsub: z.strictObject({ topic: z.string().regex(/^projects\/[^/]+\/topics\/[A-Za-z][\w.~+%-]{2,254}$/) }) }),
  serviceAccount: z.string(),
});

describe('the GCP specs', () => {
  it('give every function a Cloud Run service on the gen2 environment, internal ingress, its target and secrets', () => {
    expect(Object.keys(gcp.services).sort()).toEqual(Object.keys(decl.functions).map(kebab).sort());
    for (const [target, f] of Object.entries(decl.functions)) {
      const svc = parse(readFileSync(join(dir, 'services', `${kebab(target)}.yaml`), 'utf8'));
      const spec = svc.spec.template.spec;
      const env = Object.fromEntries(spec.containers[0].env.map((e: { name: string; value: string }) => [e.name, e.value]));
      expect(svc.metadata.annotations['run.googleapis.com/ingress']).toBe('internal');
      expect(svc.spec.template.metadata.annotations['run.googleapis.com/execution-environment']).toBe('gen2');
      expect(env).toMatchObject({
        FUNCTION_TARGET: target,
        POLICY_FILE: '/etc/kube-tidy/policy/policy.yaml',
        KUBECONFIG: '/etc/kube-tidy/kubeconfig/kubeconfig',
      });
      expect(env).not.toHaveProperty('POLICY_CONFIGMAP');
      // Cloud Run allows 60 min; the drain gets as long as a request may take.
      expect(spec.timeoutSeconds).toBe(f.timeout);
      expect(Number(env.SHUTDOWN_TIMEOUT_SECONDS)).toBeLessThanOrEqual(spec.timeoutSeconds);
      // Every request is answered (503 if unfinished) before the platform cuts it off.
      expect(Number(env.REQUEST_DEADLINE_SECONDS)).toBeLessThan(spec.timeoutSeconds);
      expect(spec.containers[0].image).toMatch(/^\$\{REGION\}-docker\.pkg\.dev\/\$\{PROJECT_ID\}\/kube-tidy\/kube-tidy:/);
    }
  });

  it('schedule every declared schedule with an OIDC-authenticated Cloud Scheduler job', () => {
    const declared = Object.entries(decl.functions).flatMap(([t, f]) => f.events.flatMap((e) => ('schedule' in e ? [`${kebab(t)} ${e.schedule.cron}`] : [])));
    const jobs = Object.entries(gcp.scheduler).map(([name, job]) => {
      const j = SchedulerJob.parse(job);
      expect(j.httpTarget.oidcToken.audience).toBe(j.httpTarget.uri);
      return `${name.replace(/-\d+$/, '')} ${j.schedule}`;
    });
    expect(jobs.sort()).toEqual(declared.sort());
  });

  it('route every watched kind to its functions through an Eventarc Pub/Sub trigger', () => {
    const declared = new Set(
      Object.entries(decl.functions).flatMap(([t, f]) =>
        f.events.flatMap((e) => ('cloudEvent' in e ? [`kube-tidy-${kebab(t)} ${e.cloudEvent.kind.toLowerCase()}`] : [])),
      ),
    );
    const triggers = Object.values(gcp.eventarc).flatMap((t) => {
      const e = EventarcTrigger.parse(t);
      expect(e.eventFilters).toEqual([{ attribute: 'type', value: 'google.cloud.pubsub.topic.v1.messagePublished' }]);
      const kind = e.transport.pubsub.topic.match(/kube-tidy-(\w+)-events$/)?.[1];
      return kind ? [`${e.destination.cloudRun.service} ${kind}`] : [];
    });
    expect(new Set(triggers)).toEqual(declared);
  });

  it('give a function that fans out its own Pub/Sub topic for shards, a publisher role on it, a trigger back to it and a dead-letter topic for shards refused for good: no broker on Cloud Run', () => {
    const sharding = Object.entries(decl.functions)
      .filter(([, f]) => f.events.some((e) => 'shards' in e))
      .map(([t]) => kebab(t));
    expect(sharding).toEqual(['sweep']);
    for (const t of sharding) {
      const env = new Map(
        (parse(readFileSync(join(dir, 'services', `${t}.yaml`), 'utf8')).spec.template.spec.containers[0].env as { name: string; value: string }[]).map((e) => [
          e.name,
          e.value,
        ]),
      );
      expect(env.get('SWEEP_SHARD_SINK')).toBeUndefined();
      const topic = `projects/\${PROJECT_ID}/topics/kube-tidy-${t}-shards`;
      expect(env.get('SWEEP_SHARD_TOPIC')).toBe(topic);
      const trigger = EventarcTrigger.parse(gcp.eventarc[`${t}-shards`]);
      expect([trigger.destination.cloudRun.service, trigger.transport.pubsub.topic]).toEqual([`kube-tidy-${t}`, topic]);
      expect(script).toContain(
        `g pubsub topics add-iam-policy-binding kube-tidy-${t}-shards --member "serviceAccount:$(sa ${t})" --role roles/pubsub.publisher`,
      );
      expect(script).toContain(
        `sub="$(g eventarc triggers describe kube-tidy-${t}-shards --location "$REGION" --format="value(transport.pubsub.subscription)")"`,
      );
      // A shard refused for good is not redelivered for a day: after 5 attempts it is dead-lettered, to a topic that keeps it.
      const dead = `kube-tidy-${t}-shards-dead`;
      expect(script).toMatch(new RegExp(`subscriptions update "\\$sub" --ack-deadline \\d+ --dead-letter-topic ${dead} --max-delivery-attempts 5`));
      expect(script).toContain(`g pubsub subscriptions create ${dead} --topic ${dead}`);
      const agent = 'serviceAccount:service-${PROJECT_NUMBER}@gcp-sa-pubsub.iam.gserviceaccount.com';
      expect(script).toContain(`g pubsub topics add-iam-policy-binding ${dead} --member "${agent}" --role roles/pubsub.publisher`);
      expect(script).toContain(`g pubsub subscriptions add-iam-policy-binding "$sub" --member "${agent}" --role roles/pubsub.subscriber`);
    }
  });

  it('refuse a Scheduler job a schema cannot accept (the schemas have teeth)', () => {
    const job = structuredClone(Object.values(gcp.scheduler)[0]!) as Record<string, unknown>;
    expect(SchedulerJob.safeParse({ ...job, attemptDeadline: '3600s' }).success).toBe(false);
    expect(SchedulerJob.safeParse({ ...job, schedule: 'every 5 minutes' }).success).toBe(false);
  });
});

describe('infra/gcp/generated/deploy.sh', () => {
  it('is valid bash', () => {
    execFileSync('bash', ['-n', join(dir, 'deploy.sh')]);
  });

  it('deploys every service, topic, trigger and job it was generated from', () => {
    expect(script).toContain('envsubst < "$here/services/$name.yaml"');
    expect(script).toMatch(new RegExp(`for name in ${Object.keys(gcp.services).join(' ')}; do`));
    for (const t of Object.values(gcp.eventarc) as { transport: { pubsub: { topic: string } } }[])
      expect(script).toContain(t.transport.pubsub.topic.split('/').pop()!);
    for (const name of Object.keys(gcp.scheduler)) expect(script).toContain(`jobs create http kube-tidy-${name} `);
    for (const name of Object.keys(gcp.eventarc)) expect(script).toContain(`triggers create kube-tidy-${name} `);
  });
});

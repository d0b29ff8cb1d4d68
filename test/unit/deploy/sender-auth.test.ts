// Sender authentication in the generated deployments, read back from the committed files:
// every Knative Service accepts exactly the Knative OIDC identities of the Triggers that
// deliver to it (and the `invoker` account where people call it over HTTP), every such
// Trigger asks for that Service's audience, and every Cloud Run service accepts its own URL
// from the Google accounts that call it. Each environment is a valid configuration of
// shared/serve/http/auth.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { kebab, readDeclaration, REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { readDueConfig } from '../../../shared/cleanup/due/config.js';
import { readSenderAuthConfig } from '../../../shared/serve/http/auth.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML
type Any = any;

const decl = readDeclaration();
const ns = decl.provider.namespace;
const knativeDir = join(REPO_ROOT, decl.deployment.targets.knative);
const objects = (): Any[] => readdirSync(knativeDir).flatMap((f) => parseAllDocuments(readFileSync(join(knativeDir, f), 'utf8')).map((d) => d.toJS()));
const envOf = (svc: Any): Record<string, string> =>
  Object.fromEntries(svc.spec.template.spec.containers[0].env.filter((e: Any) => 'value' in e).map((e: Any) => [e.name, e.value]));

/** Takes cluster events and a ping tick, the due list's (podTerminated): DUE_TICK_SENDERS names who may tick. */
const dueTicked = (f: (typeof decl.functions)[string]) =>
  f.events.some((e) => 'cloudEvent' in e) && f.events.some((e) => 'schedule' in e && e.schedule.as === 'ping');

/** Every way the Knative manifests can disagree with Knative's sender identity, as sentences. */
function knativeProblems(all: Any[]): string[] {
  const out: string[] = [];
  const triggers = all.filter((o) => o.kind === 'Trigger');
  const accounts = new Set(all.filter((o) => o.kind === 'ServiceAccount').map((o) => o.metadata.name));
  for (const [target, f] of Object.entries(decl.functions)) {
    const svc = all.find((o) => o.kind === 'Service' && o.apiVersion === 'serving.knative.dev/v1' && o.metadata.name === kebab(target));
    const env = envOf(svc);
    if (env.SENDER_AUTH !== 'kubernetes') out.push(`${target}: SENDER_AUTH is ${env.SENDER_AUTH}`);
    const audience = `serving.knative.dev/service/${ns}/${kebab(target)}`;
    if (env.SENDER_AUTH_AUDIENCE !== audience) out.push(`${target}: audience ${env.SENDER_AUTH_AUDIENCE}, not ${audience}`);
    const mine = triggers.filter((t) => t.spec.subscriber.ref.name === kebab(target));
    for (const t of mine)
      if (t.spec.subscriber.audience !== env.SENDER_AUTH_AUDIENCE) out.push(`Trigger ${t.metadata.name} asks for audience ${t.spec.subscriber.audience}`);
    // Knative names a Trigger's OIDC account <trigger>-oidc-eventing.knative.dev-trigger.
    const expected = mine.map((t) => `system:serviceaccount:${ns}:${t.metadata.name}-oidc-eventing.knative.dev-trigger`);
    if (f.events.some((e) => 'http' in e)) {
      expected.push(`system:serviceaccount:${ns}:invoker`);
      if (!accounts.has('invoker')) out.push('no invoker ServiceAccount for HTTP callers');
    }
    const subjects = (env.SENDER_AUTH_SUBJECTS ?? '').split(',');
    if (JSON.stringify([...subjects].sort()) !== JSON.stringify(expected.sort()))
      out.push(`${target}: senders ${subjects.join(' ')}, not ${expected.join(' ')}`);
    for (const s of subjects) if (s.split(':').pop()!.length > 63) out.push(`${target}: ${s} is longer than a ServiceAccount name can be`);
    // The due list's tick (cluster events and a ping tick: podTerminated) only from its PingSource's Trigger (issue 33).
    const pings = mine.filter((t) => t.spec.filter?.attributes?.type === 'dev.knative.sources.ping');
    const tickers = dueTicked(f) ? pings.map((t) => `system:serviceaccount:${ns}:${t.metadata.name}-oidc-eventing.knative.dev-trigger`) : [];
    if ((env.DUE_TICK_SENDERS ?? '') !== tickers.join(',')) out.push(`${target}: DUE_TICK_SENDERS ${env.DUE_TICK_SENDERS}, not ${tickers.join(',')}`);
    try {
      readSenderAuthConfig(env);
      readDueConfig(env);
    } catch (e) {
      out.push(`${target}: ${(e as Error).message}`);
    }
  }
  return out;
}

describe('Knative sender identity in the generated manifests', () => {
  it('is on for every function, with its audience on each Trigger and the Triggers as its only senders', () => {
    expect(decl.provider.senderAuth.knative).toBe('kubernetes');
    expect(knativeProblems(objects())).toEqual([]);
  });

  for (const [sentence, tamper, expected] of [
    [
      'a Trigger without the audience is caught (it would send no token)',
      (o: Any) => o.kind === 'Trigger' && o.metadata.name === 'sweep-schedule-0' && delete o.spec.subscriber.audience,
      /Trigger sweep-schedule-0 asks for audience undefined/,
    ],
    [
      "a sender that is not one of the function's Triggers is caught",
      (o: Any) =>
        o.kind === 'Service' &&
        o.metadata.name === 'sweep' &&
        (o.spec.template.spec.containers[0].env.find((e: Any) => e.name === 'SENDER_AUTH_SUBJECTS').value += ',system:serviceaccount:default:default'),
      /sweep: senders/,
    ],
    [
      "a pod-events Trigger's account allowed to tick podTerminated is caught",
      (o: Any) =>
        o.kind === 'Service' &&
        o.metadata.name === 'pod-terminated' &&
        (o.spec.template.spec.containers[0].env.find((e: Any) => e.name === 'DUE_TICK_SENDERS').value +=
          `,system:serviceaccount:${ns}:pod-terminated-pod-add-oidc-eventing.knative.dev-trigger`),
      /podTerminated: DUE_TICK_SENDERS/,
    ],
    [
      'a Service with sender authentication off is caught',
      (o: Any) =>
        o.kind === 'Service' &&
        o.metadata.name === 'invoke' &&
        (o.spec.template.spec.containers[0].env.find((e: Any) => e.name === 'SENDER_AUTH').value = 'none'),
      /invoke: SENDER_AUTH is none/,
    ],
  ] as const) {
    it(sentence, () => {
      const all = objects();
      for (const o of all) tamper(o);
      expect(knativeProblems(all).join('\n')).toMatch(expected);
    });
  }
});

describe('Google sender authentication in the generated Cloud Run services', () => {
  const dir = join(REPO_ROOT, decl.deployment.targets.gcp);
  const jobs = readdirSync(join(dir, 'scheduler')).map((f) => JSON.parse(readFileSync(join(dir, 'scheduler', f), 'utf8')));

  for (const [target, f] of Object.entries(decl.functions)) {
    it(`${target}: its own URL as audience, its callers' service accounts, and Cloud Run's signature-stripping IAM check off`, () => {
      const svc = parse(readFileSync(join(dir, 'services', `${kebab(target)}.yaml`), 'utf8'));
      const env = envOf(svc);
      expect(svc.metadata.annotations['run.googleapis.com/invoker-iam-disabled']).toBe('true');
      const config = readSenderAuthConfig(env);
      expect(config).toMatchObject({ platform: 'google', issuers: ['https://accounts.google.com', 'accounts.google.com'] });
      // What Cloud Scheduler's token for this service carries is accepted.
      for (const j of jobs.filter((j) => j.httpTarget.uri.includes(`//kube-tidy-${kebab(target)}-`)))
        expect(config.audiences).toContain(j.httpTarget.oidcToken.audience);
      // Shards come back through Eventarc on GCP, like cluster events.
      const callers = new Set(f.events.map((e) => ('schedule' in e ? 'scheduler' : 'cloudEvent' in e || 'shards' in e ? 'eventarc' : 'caller')));
      expect(config.subjects.sort()).toEqual([...callers].map((c) => `kube-tidy-${c}@\${PROJECT_ID}.iam.gserviceaccount.com`).sort());
      // The due list's tick (podTerminated): only the scheduler's account (issue 33).
      const ticked = dueTicked(f);
      expect(env.DUE_TICK_SENDERS).toBe(ticked ? `kube-tidy-scheduler@\${PROJECT_ID}.iam.gserviceaccount.com` : undefined);
      if (ticked) expect(readDueConfig(env).DUE_TICK_SENDERS).toHaveLength(1);
    });
  }

  it('deploy.sh creates the caller account people impersonate, and reconciles the audience Eventarc uses', () => {
    const script = readFileSync(join(dir, 'deploy.sh'), 'utf8');
    expect(script).toMatch(/^for name in .* caller; do$/m);
    for (const name of readdirSync(join(dir, 'eventarc')))
      expect(script).toContain(`accept_eventarc_audience kube-tidy-${name.replace(/-[a-z]+\.json$/, '')} kube-tidy-${name.replace(/\.json$/, '')} `);
  });
});

// The gcloud commands that deploy the rendered GCP specs, as one script. Generated, like the
// specs, so it names exactly the functions, topics and schedules serverless.yml declares.
import { kebab, type Declaration } from '../declaration/declaration.js';
import { shardTopicFor, topicFor } from './render.js';

interface TriggerSpec {
  destination: { cloudRun: { service: string } };
  eventFilters: { value: string }[];
  transport: { pubsub: { topic: string } };
}
interface JobSpec {
  schedule: string;
  timeZone: string;
  attemptDeadline: string;
  retryConfig: { retryCount: number };
  httpTarget: { uri: string; headers: Record<string, string>; oidcToken: { audience: string } };
}

/** gcloud's --headers: KEY=VALUE,... (quoted when a value names a variable the script expands). */
const headersFlag = (headers: Record<string, string>): string => {
  const flag = Object.entries(headers)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return flag.includes('$') ? `"${flag}"` : flag;
};

/** The audiences a service's SENDER_AUTH_AUDIENCE accepts, as bash sees them after envsubst. */
const accepted = (svc: string) => `https://${svc}-\${PROJECT_NUMBER}.\${REGION}.run.app/,https://${svc}-\${PROJECT_NUMBER}.\${REGION}.run.app`;

// kube-tidy checks the audience of Eventarc's Pub/Sub push tokens: it is whatever URL Eventarc
// chose for the subscription (an explicit audience, else the push endpoint). When the service
// does not accept it yet, it is added to the service's SENDER_AUTH_AUDIENCE (a new revision).
const EVENTARC_AUDIENCE = [
  'accept_eventarc_audience() {  # service trigger accepted-audiences',
  '  local sub aud',
  '  sub=$(g eventarc triggers describe "$2" --location "$REGION" --format="value(transport.pubsub.subscription)")',
  '  aud=$(g pubsub subscriptions describe "$sub" --format="value(pushConfig.oidcToken.audience)")',
  '  [ -n "$aud" ] || aud=$(g pubsub subscriptions describe "$sub" --format="value(pushConfig.pushEndpoint)")',
  '  case ",$3," in',
  '    *",$aud,"*) ;;',
  '    *) echo "$1: Eventarc trigger $2 sends tokens for $aud; adding it to SENDER_AUTH_AUDIENCE" >&2',
  '       g run services update "$1" --region "$REGION" --update-env-vars "^|^SENDER_AUTH_AUDIENCE=$3,$aud" >/dev/null ;;',
  '  esac',
  '}',
  '',
];

export function deployScript(decl: Declaration, specs: { scheduler: Record<string, object>; eventarc: Record<string, object> }): string {
  const fns = Object.keys(decl.functions).map(kebab);
  const google = decl.provider.senderAuth.gcp === 'google';
  const callers = ['scheduler', 'eventarc', ...(google && Object.values(decl.functions).some((f) => f.events.some((e) => 'http' in e)) ? ['caller'] : [])];
  const kinds = [...new Set(Object.values(decl.functions).flatMap((f) => f.events.flatMap((e) => ('cloudEvent' in e ? [e.cloudEvent.kind] : []))))];
  const sharding = Object.entries(decl.functions)
    .filter(([, f]) => f.events.some((e) => 'shards' in e))
    .map(([t]) => t);
  const lines = [
    '#!/usr/bin/env bash',
    '# GENERATED from serverless.yml by `npm run infra:generate`. Do not edit: edit serverless.yml.',
    '# Deploys kube-tidy to Cloud Run (see infra/gcp/README.md). Needs gcloud and envsubst, and',
    '# PROJECT_ID, PROJECT_NUMBER, REGION; the image pushed to ${REGION}-docker.pkg.dev/${PROJECT_ID}/kube-tidy;',
    '# Secret Manager secrets kube-tidy-kubeconfig and kube-tidy-policy (see docs/deploying.md).',
    'set -euo pipefail',
    ': "${PROJECT_ID:?}" "${PROJECT_NUMBER:?}" "${REGION:?}"',
    'here=$(cd "$(dirname "$0")" && pwd)',
    'tmp=$(mktemp -d); trap \'rm -rf "$tmp"\' EXIT',
    'g() { gcloud --project "$PROJECT_ID" --quiet "$@"; }',
    'sa() { echo "kube-tidy-$1@${PROJECT_ID}.iam.gserviceaccount.com"; }',
    '',
    '# One Google service account per function (no roles: the cluster rights are in the kubeconfig), and the callers.',
    `for name in ${[...fns, ...callers].join(' ')}; do`,
    '  g iam service-accounts describe "$(sa "$name")" >/dev/null 2>&1 || g iam service-accounts create "kube-tidy-$name"',
    'done',
    `for name in ${fns.join(' ')}; do`,
    '  for secret in kube-tidy-kubeconfig kube-tidy-policy; do',
    '    g secrets add-iam-policy-binding "$secret" --member "serviceAccount:$(sa "$name")" --role roles/secretmanager.secretAccessor >/dev/null',
    '  done',
    '  envsubst < "$here/services/$name.yaml" > "$tmp/$name.yaml"',
    '  g run services replace "$tmp/$name.yaml" --region "$REGION"',
    'done',
    '',
    ...(google ? EVENTARC_AUDIENCE : []),
    '# Cluster events arrive through Pub/Sub, one topic per watched kind.',
    ...kinds.map((k) => `g pubsub topics describe ${topicFor(k)} >/dev/null 2>&1 || g pubsub topics create ${topicFor(k)}`),
    ...(sharding.length ? ['# A big sweep publishes shards to its own topic (docs/scale.md); Eventarc brings them back to it.'] : []),
    ...sharding.flatMap((t) => [
      `g pubsub topics describe ${shardTopicFor(t)} >/dev/null 2>&1 || g pubsub topics create ${shardTopicFor(t)}`,
      `g pubsub topics add-iam-policy-binding ${shardTopicFor(t)} --member "serviceAccount:$(sa ${kebab(t)})" --role roles/pubsub.publisher >/dev/null`,
    ]),
  ];
  for (const [name, t] of Object.entries(specs.eventarc) as [string, TriggerSpec][]) lines.push(...triggerLines(decl, name, t, google));
  lines.push('', '# Schedules: Cloud Scheduler POSTs with an OIDC token the service checks.');
  for (const [name, j] of Object.entries(specs.scheduler) as [string, JobSpec][]) {
    const svc = `kube-tidy-${name.replace(/-\d+$/, '')}`;
    lines.push(
      `g run services add-iam-policy-binding ${svc} --region "$REGION" --member "serviceAccount:$(sa scheduler)" --role roles/run.invoker >/dev/null`,
      `g scheduler jobs delete kube-tidy-${name} --location "$REGION" >/dev/null 2>&1 || true`,
      `g scheduler jobs create http kube-tidy-${name} --location "$REGION" --schedule '${j.schedule}' --time-zone '${j.timeZone}' \\`,
      `  --uri "${j.httpTarget.uri}" --http-method POST --headers ${headersFlag(j.httpTarget.headers)} --message-body '{}' \\`,
      `  --oidc-service-account-email "$(sa scheduler)" --oidc-token-audience "${j.httpTarget.oidcToken.audience}" \\`,
      `  --attempt-deadline ${j.attemptDeadline} --max-retry-attempts ${j.retryConfig.retryCount}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** One Eventarc trigger: its service's invoker binding, the trigger, the audience it sends; for shards, their dead letters. */
function triggerLines(decl: Declaration, name: string, t: TriggerSpec, google: boolean): string[] {
  const out: string[] = [];
  const svc = t.destination.cloudRun.service;
  out.push(
    `g run services add-iam-policy-binding ${svc} --region "$REGION" --member "serviceAccount:$(sa eventarc)" --role roles/run.invoker >/dev/null`,
    `g eventarc triggers describe kube-tidy-${name} --location "$REGION" >/dev/null 2>&1 || g eventarc triggers create kube-tidy-${name} --location "$REGION" \\`,
    `  --destination-run-service ${svc} --destination-run-region "$REGION" --destination-run-path / \\`,
    `  --event-filters type=${t.eventFilters[0]!.value} \\`,
    `  --transport-topic "${t.transport.pubsub.topic}" --service-account "$(sa eventarc)"`,
  );
  if (google) out.push(`accept_eventarc_audience ${svc} kube-tidy-${name} "${accepted(svc)}"`);
  const sharding = Object.entries(decl.functions).find(([t]) => name === `${kebab(t)}-shards`)?.[1];
  if (sharding) {
    // A shard takes up to the function's timeout: Pub/Sub must not redeliver it meanwhile
    // (a redelivery is harmless, the pods are re-read, but it is work done twice).
    // Pub/Sub push redelivers every non-2xx until retention ends (a day): a shard refused for
    // good (422: its plan expired, or never planned) goes after 5 attempts to a dead-letter
    // topic with a subscription of its own (a topic without one loses what it gets). The
    // Pub/Sub service agent publishes there and acks here (Pub/Sub's DeadLetterPolicy docs).
    const dead = `kube-tidy-${name}-dead`;
    const agent = 'serviceAccount:service-${PROJECT_NUMBER}@gcp-sa-pubsub.iam.gserviceaccount.com';
    out.push(
      `g pubsub topics describe ${dead} >/dev/null 2>&1 || g pubsub topics create ${dead}`,
      `g pubsub subscriptions describe ${dead} >/dev/null 2>&1 || g pubsub subscriptions create ${dead} --topic ${dead}`,
      `g pubsub topics add-iam-policy-binding ${dead} --member "${agent}" --role roles/pubsub.publisher >/dev/null`,
      `sub="$(g eventarc triggers describe kube-tidy-${name} --location "$REGION" --format="value(transport.pubsub.subscription)")"`,
      `g pubsub subscriptions add-iam-policy-binding "$sub" --member "${agent}" --role roles/pubsub.subscriber >/dev/null`,
      `g pubsub subscriptions update "$sub" --ack-deadline ${Math.min(600, sharding.timeout + 30)} --dead-letter-topic ${dead} --max-delivery-attempts 5 >/dev/null`,
    );
  }
  return out;
}

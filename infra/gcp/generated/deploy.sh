#!/usr/bin/env bash
# GENERATED from serverless.yml by `npm run infra:generate`. Do not edit: edit serverless.yml.
# Deploys kube-tidy to Cloud Run (see infra/gcp/README.md). Needs gcloud and envsubst, and
# PROJECT_ID, PROJECT_NUMBER, REGION; the image pushed to ${REGION}-docker.pkg.dev/${PROJECT_ID}/kube-tidy;
# Secret Manager secrets kube-tidy-kubeconfig and kube-tidy-policy (see docs/deploying.md).
set -euo pipefail
: "${PROJECT_ID:?}" "${PROJECT_NUMBER:?}" "${REGION:?}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
g() { gcloud --project "$PROJECT_ID" --quiet "$@"; }
sa() { echo "kube-tidy-$1@${PROJECT_ID}.iam.gserviceaccount.com"; }

# One Google service account per function (no roles: the cluster rights are in the kubeconfig), and the callers.
for name in pod-terminated sweep invoke object-updated job-deleted orphan-sweep defrag evacuation scheduler eventarc caller; do
  g iam service-accounts describe "$(sa "$name")" >/dev/null 2>&1 || g iam service-accounts create "kube-tidy-$name"
done
for name in pod-terminated sweep invoke object-updated job-deleted orphan-sweep defrag evacuation; do
  for secret in kube-tidy-kubeconfig kube-tidy-policy; do
    g secrets add-iam-policy-binding "$secret" --member "serviceAccount:$(sa "$name")" --role roles/secretmanager.secretAccessor >/dev/null
  done
  envsubst < "$here/services/$name.yaml" > "$tmp/$name.yaml"
  g run services replace "$tmp/$name.yaml" --region "$REGION"
done

accept_eventarc_audience() {  # service trigger accepted-audiences
  local sub aud
  sub=$(g eventarc triggers describe "$2" --location "$REGION" --format="value(transport.pubsub.subscription)")
  aud=$(g pubsub subscriptions describe "$sub" --format="value(pushConfig.oidcToken.audience)")
  [ -n "$aud" ] || aud=$(g pubsub subscriptions describe "$sub" --format="value(pushConfig.pushEndpoint)")
  case ",$3," in
    *",$aud,"*) ;;
    *) echo "$1: Eventarc trigger $2 sends tokens for $aud; adding it to SENDER_AUTH_AUDIENCE" >&2
       g run services update "$1" --region "$REGION" --update-env-vars "^|^SENDER_AUTH_AUDIENCE=$3,$aud" >/dev/null ;;
  esac
}

# Cluster events arrive through Pub/Sub, one topic per watched kind.
g pubsub topics describe kube-tidy-pod-events >/dev/null 2>&1 || g pubsub topics create kube-tidy-pod-events
g pubsub topics describe kube-tidy-job-events >/dev/null 2>&1 || g pubsub topics create kube-tidy-job-events
g pubsub topics describe kube-tidy-persistentvolumeclaim-events >/dev/null 2>&1 || g pubsub topics create kube-tidy-persistentvolumeclaim-events
# A big sweep publishes shards to its own topic (docs/scale.md); Eventarc brings them back to it.
g pubsub topics describe kube-tidy-sweep-shards >/dev/null 2>&1 || g pubsub topics create kube-tidy-sweep-shards
g pubsub topics add-iam-policy-binding kube-tidy-sweep-shards --member "serviceAccount:$(sa sweep)" --role roles/pubsub.publisher >/dev/null
g run services add-iam-policy-binding kube-tidy-pod-terminated --region "$REGION" --member "serviceAccount:$(sa eventarc)" --role roles/run.invoker >/dev/null
g eventarc triggers describe kube-tidy-pod-terminated-pod --location "$REGION" >/dev/null 2>&1 || g eventarc triggers create kube-tidy-pod-terminated-pod --location "$REGION" \
  --destination-run-service kube-tidy-pod-terminated --destination-run-region "$REGION" --destination-run-path / \
  --event-filters type=google.cloud.pubsub.topic.v1.messagePublished \
  --transport-topic "projects/${PROJECT_ID}/topics/kube-tidy-pod-events" --service-account "$(sa eventarc)"
accept_eventarc_audience kube-tidy-pod-terminated kube-tidy-pod-terminated-pod "https://kube-tidy-pod-terminated-${PROJECT_NUMBER}.${REGION}.run.app/,https://kube-tidy-pod-terminated-${PROJECT_NUMBER}.${REGION}.run.app"
g run services add-iam-policy-binding kube-tidy-sweep --region "$REGION" --member "serviceAccount:$(sa eventarc)" --role roles/run.invoker >/dev/null
g eventarc triggers describe kube-tidy-sweep-shards --location "$REGION" >/dev/null 2>&1 || g eventarc triggers create kube-tidy-sweep-shards --location "$REGION" \
  --destination-run-service kube-tidy-sweep --destination-run-region "$REGION" --destination-run-path / \
  --event-filters type=google.cloud.pubsub.topic.v1.messagePublished \
  --transport-topic "projects/${PROJECT_ID}/topics/kube-tidy-sweep-shards" --service-account "$(sa eventarc)"
accept_eventarc_audience kube-tidy-sweep kube-tidy-sweep-shards "https://kube-tidy-sweep-${PROJECT_NUMBER}.${REGION}.run.app/,https://kube-tidy-sweep-${PROJECT_NUMBER}.${REGION}.run.app"
g pubsub topics describe kube-tidy-sweep-shards-dead >/dev/null 2>&1 || g pubsub topics create kube-tidy-sweep-shards-dead
g pubsub subscriptions describe kube-tidy-sweep-shards-dead >/dev/null 2>&1 || g pubsub subscriptions create kube-tidy-sweep-shards-dead --topic kube-tidy-sweep-shards-dead
g pubsub topics add-iam-policy-binding kube-tidy-sweep-shards-dead --member "serviceAccount:service-${PROJECT_NUMBER}@gcp-sa-pubsub.iam.gserviceaccount.com" --role roles/pubsub.publisher >/dev/null
sub="$(g eventarc triggers describe kube-tidy-sweep-shards --location "$REGION" --format="value(transport.pubsub.subscription)")"
g pubsub subscriptions add-iam-policy-binding "$sub" --member "serviceAccount:service-${PROJECT_NUMBER}@gcp-sa-pubsub.iam.gserviceaccount.com" --role roles/pubsub.subscriber >/dev/null
g pubsub subscriptions update "$sub" --ack-deadline 90 --dead-letter-topic kube-tidy-sweep-shards-dead --max-delivery-attempts 5 >/dev/null
g run services add-iam-policy-binding kube-tidy-object-updated --region "$REGION" --member "serviceAccount:$(sa eventarc)" --role roles/run.invoker >/dev/null
g eventarc triggers describe kube-tidy-object-updated-job --location "$REGION" >/dev/null 2>&1 || g eventarc triggers create kube-tidy-object-updated-job --location "$REGION" \
  --destination-run-service kube-tidy-object-updated --destination-run-region "$REGION" --destination-run-path / \
  --event-filters type=google.cloud.pubsub.topic.v1.messagePublished \
  --transport-topic "projects/${PROJECT_ID}/topics/kube-tidy-job-events" --service-account "$(sa eventarc)"
accept_eventarc_audience kube-tidy-object-updated kube-tidy-object-updated-job "https://kube-tidy-object-updated-${PROJECT_NUMBER}.${REGION}.run.app/,https://kube-tidy-object-updated-${PROJECT_NUMBER}.${REGION}.run.app"
g run services add-iam-policy-binding kube-tidy-object-updated --region "$REGION" --member "serviceAccount:$(sa eventarc)" --role roles/run.invoker >/dev/null
g eventarc triggers describe kube-tidy-object-updated-persistentvolumeclaim --location "$REGION" >/dev/null 2>&1 || g eventarc triggers create kube-tidy-object-updated-persistentvolumeclaim --location "$REGION" \
  --destination-run-service kube-tidy-object-updated --destination-run-region "$REGION" --destination-run-path / \
  --event-filters type=google.cloud.pubsub.topic.v1.messagePublished \
  --transport-topic "projects/${PROJECT_ID}/topics/kube-tidy-persistentvolumeclaim-events" --service-account "$(sa eventarc)"
accept_eventarc_audience kube-tidy-object-updated kube-tidy-object-updated-persistentvolumeclaim "https://kube-tidy-object-updated-${PROJECT_NUMBER}.${REGION}.run.app/,https://kube-tidy-object-updated-${PROJECT_NUMBER}.${REGION}.run.app"
g run services add-iam-policy-binding kube-tidy-job-deleted --region "$REGION" --member "serviceAccount:$(sa eventarc)" --role roles/run.invoker >/dev/null
g eventarc triggers describe kube-tidy-job-deleted-job --location "$REGION" >/dev/null 2>&1 || g eventarc triggers create kube-tidy-job-deleted-job --location "$REGION" \
  --destination-run-service kube-tidy-job-deleted --destination-run-region "$REGION" --destination-run-path / \
  --event-filters type=google.cloud.pubsub.topic.v1.messagePublished \
  --transport-topic "projects/${PROJECT_ID}/topics/kube-tidy-job-events" --service-account "$(sa eventarc)"
accept_eventarc_audience kube-tidy-job-deleted kube-tidy-job-deleted-job "https://kube-tidy-job-deleted-${PROJECT_NUMBER}.${REGION}.run.app/,https://kube-tidy-job-deleted-${PROJECT_NUMBER}.${REGION}.run.app"
g run services add-iam-policy-binding kube-tidy-evacuation --region "$REGION" --member "serviceAccount:$(sa eventarc)" --role roles/run.invoker >/dev/null
g eventarc triggers describe kube-tidy-evacuation-pod --location "$REGION" >/dev/null 2>&1 || g eventarc triggers create kube-tidy-evacuation-pod --location "$REGION" \
  --destination-run-service kube-tidy-evacuation --destination-run-region "$REGION" --destination-run-path / \
  --event-filters type=google.cloud.pubsub.topic.v1.messagePublished \
  --transport-topic "projects/${PROJECT_ID}/topics/kube-tidy-pod-events" --service-account "$(sa eventarc)"
accept_eventarc_audience kube-tidy-evacuation kube-tidy-evacuation-pod "https://kube-tidy-evacuation-${PROJECT_NUMBER}.${REGION}.run.app/,https://kube-tidy-evacuation-${PROJECT_NUMBER}.${REGION}.run.app"

# Schedules: Cloud Scheduler POSTs with an OIDC token the service checks.
g run services add-iam-policy-binding kube-tidy-pod-terminated --region "$REGION" --member "serviceAccount:$(sa scheduler)" --role roles/run.invoker >/dev/null
g scheduler jobs delete kube-tidy-pod-terminated-2 --location "$REGION" >/dev/null 2>&1 || true
g scheduler jobs create http kube-tidy-pod-terminated-2 --location "$REGION" --schedule '* * * * *' --time-zone 'Etc/UTC' \
  --uri "https://kube-tidy-pod-terminated-${PROJECT_NUMBER}.${REGION}.run.app/" --http-method POST --headers "Content-Type=application/json,ce-specversion=1.0,ce-type=dev.knative.sources.ping,ce-source=//cloudscheduler.googleapis.com/projects/${PROJECT_ID}/locations/${REGION}/jobs/kube-tidy-pod-terminated-2,ce-id=kube-tidy-pod-terminated-2" --message-body '{}' \
  --oidc-service-account-email "$(sa scheduler)" --oidc-token-audience "https://kube-tidy-pod-terminated-${PROJECT_NUMBER}.${REGION}.run.app/" \
  --attempt-deadline 105s --max-retry-attempts 3
g run services add-iam-policy-binding kube-tidy-sweep --region "$REGION" --member "serviceAccount:$(sa scheduler)" --role roles/run.invoker >/dev/null
g scheduler jobs delete kube-tidy-sweep-0 --location "$REGION" >/dev/null 2>&1 || true
g scheduler jobs create http kube-tidy-sweep-0 --location "$REGION" --schedule '*/15 * * * *' --time-zone 'Etc/UTC' \
  --uri "https://kube-tidy-sweep-${PROJECT_NUMBER}.${REGION}.run.app/" --http-method POST --headers Content-Type=application/json --message-body '{}' \
  --oidc-service-account-email "$(sa scheduler)" --oidc-token-audience "https://kube-tidy-sweep-${PROJECT_NUMBER}.${REGION}.run.app/" \
  --attempt-deadline 90s --max-retry-attempts 3
g run services add-iam-policy-binding kube-tidy-object-updated --region "$REGION" --member "serviceAccount:$(sa scheduler)" --role roles/run.invoker >/dev/null
g scheduler jobs delete kube-tidy-object-updated-6 --location "$REGION" >/dev/null 2>&1 || true
g scheduler jobs create http kube-tidy-object-updated-6 --location "$REGION" --schedule '* * * * *' --time-zone 'Etc/UTC' \
  --uri "https://kube-tidy-object-updated-${PROJECT_NUMBER}.${REGION}.run.app/" --http-method POST --headers "Content-Type=application/json,ce-specversion=1.0,ce-type=dev.knative.sources.ping,ce-source=//cloudscheduler.googleapis.com/projects/${PROJECT_ID}/locations/${REGION}/jobs/kube-tidy-object-updated-6,ce-id=kube-tidy-object-updated-6" --message-body '{}' \
  --oidc-service-account-email "$(sa scheduler)" --oidc-token-audience "https://kube-tidy-object-updated-${PROJECT_NUMBER}.${REGION}.run.app/" \
  --attempt-deadline 105s --max-retry-attempts 3
g run services add-iam-policy-binding kube-tidy-orphan-sweep --region "$REGION" --member "serviceAccount:$(sa scheduler)" --role roles/run.invoker >/dev/null
g scheduler jobs delete kube-tidy-orphan-sweep-0 --location "$REGION" >/dev/null 2>&1 || true
g scheduler jobs create http kube-tidy-orphan-sweep-0 --location "$REGION" --schedule '*/10 * * * *' --time-zone 'Etc/UTC' \
  --uri "https://kube-tidy-orphan-sweep-${PROJECT_NUMBER}.${REGION}.run.app/" --http-method POST --headers Content-Type=application/json --message-body '{}' \
  --oidc-service-account-email "$(sa scheduler)" --oidc-token-audience "https://kube-tidy-orphan-sweep-${PROJECT_NUMBER}.${REGION}.run.app/" \
  --attempt-deadline 150s --max-retry-attempts 3
g run services add-iam-policy-binding kube-tidy-defrag --region "$REGION" --member "serviceAccount:$(sa scheduler)" --role roles/run.invoker >/dev/null
g scheduler jobs delete kube-tidy-defrag-0 --location "$REGION" >/dev/null 2>&1 || true
g scheduler jobs create http kube-tidy-defrag-0 --location "$REGION" --schedule '*/2 * * * *' --time-zone 'Etc/UTC' \
  --uri "https://kube-tidy-defrag-${PROJECT_NUMBER}.${REGION}.run.app/" --http-method POST --headers "Content-Type=application/json,ce-specversion=1.0,ce-type=dev.knative.sources.ping,ce-source=//cloudscheduler.googleapis.com/projects/${PROJECT_ID}/locations/${REGION}/jobs/kube-tidy-defrag-0,ce-id=kube-tidy-defrag-0" --message-body '{}' \
  --oidc-service-account-email "$(sa scheduler)" --oidc-token-audience "https://kube-tidy-defrag-${PROJECT_NUMBER}.${REGION}.run.app/" \
  --attempt-deadline 90s --max-retry-attempts 3
g run services add-iam-policy-binding kube-tidy-evacuation --region "$REGION" --member "serviceAccount:$(sa scheduler)" --role roles/run.invoker >/dev/null
g scheduler jobs delete kube-tidy-evacuation-1 --location "$REGION" >/dev/null 2>&1 || true
g scheduler jobs create http kube-tidy-evacuation-1 --location "$REGION" --schedule '* * * * *' --time-zone 'Etc/UTC' \
  --uri "https://kube-tidy-evacuation-${PROJECT_NUMBER}.${REGION}.run.app/" --http-method POST --headers Content-Type=application/json --message-body '{}' \
  --oidc-service-account-email "$(sa scheduler)" --oidc-token-audience "https://kube-tidy-evacuation-${PROJECT_NUMBER}.${REGION}.run.app/" \
  --attempt-deadline 90s --max-retry-attempts 3

// Google-signed ID tokens on Cloud Run (shared/serve/http/auth.ts, platform `google`): each service
// accepts tokens for its own URL from the Google service accounts that call it — Cloud
// Scheduler's for schedules, Eventarc's for cluster events (Pub/Sub push), and `caller`, the
// account people impersonate for HTTP calls. Cloud Run's own invoker IAM check is turned off
// for these services: when it is on, Cloud Run replaces the token's signature with
// SIGNATURE_REMOVED_BY_GOOGLE before the container sees it (Cloud Run troubleshooting,
// "signature-removed"), so nothing could be verified here.
import { kebab, type FunctionDecl } from '../declaration/declaration.js';
import { tickSenders } from '../knative/sender-auth.js';

/** A Google service account of the deployment, with the ${PROJECT_ID} placeholder deploy.sh fills. */
export const SA = (name: string) => `kube-tidy-${name}@\${PROJECT_ID}.iam.gserviceaccount.com`;

/** The service's deterministic run.app URL (what Cloud Scheduler's token is for). */
export const serviceUrl = (target: string) => `https://kube-tidy-${kebab(target)}-\${PROJECT_NUMBER}.\${REGION}.run.app/`;

/** The Google accounts that call a function: one per kind of event it takes. */
export function callersOf(f: FunctionDecl): string[] {
  // Shards come back through Pub/Sub and Eventarc, like cluster events (docs/scale.md).
  const callers = f.events.map((e) => ('schedule' in e ? 'scheduler' : 'cloudEvent' in e || 'shards' in e ? 'eventarc' : 'caller'));
  return [...new Set(callers)];
}

export function googleSenderAuthEnv(target: string, f: FunctionDecl): Record<string, string> {
  const url = serviceUrl(target);
  return {
    SENDER_AUTH: 'google',
    // With and without the trailing slash: callers differ in how they write the URL.
    SENDER_AUTH_AUDIENCE: `${url},${url.slice(0, -1)}`,
    SENDER_AUTH_SUBJECTS: callersOf(f).map(SA).join(','),
    // Only Cloud Scheduler's account ticks podTerminated, not Eventarc's (DUE_TICK_SENDERS).
    ...(tickSenders(f, () => SA('scheduler')).length ? { DUE_TICK_SENDERS: SA('scheduler') } : {}),
  };
}

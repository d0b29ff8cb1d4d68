// Knative sender identity (Eventing feature `authentication-oidc`) for the generated
// manifests: the audience each function's Service accepts, set on the Triggers that deliver
// to it, and the ServiceAccounts whose tokens it accepts. Facts from Knative's source:
//  - A sender attaches a token only when the target has an audience
//    (eventing pkg/kncloudevents/event_dispatcher.go, createRequest). Knative Serving does not
//    publish one for a Service, so the Trigger must name it: `spec.subscriber.audience`
//    (knative.dev/pkg resolver/addressable_resolver.go: the destination's audience wins).
//  - The broker's filter sends a Trigger's events with a token of the Trigger's own OIDC
//    ServiceAccount, `status.auth.serviceAccountName` (eventing pkg/broker/filter/filter_handler.go),
//    named kmeta.ChildName(<trigger>, "-oidc-eventing.knative.dev-trigger") since Eventing 1.13
//    (pkg/auth/serviceaccount.go): the plain concatenation while it fits in 63 characters.
//  - The audience follows Knative's own format `<group>/<kind>/<namespace>/<name>`, lowercased
//    (pkg/auth/audience.go); any string would do as long as Trigger and Service agree.
import { kebab, triggerName, type EventDecl, type FunctionDecl } from '../declaration/declaration.js';

const TRIGGER_ACCOUNT_SUFFIX = '-oidc-eventing.knative.dev-trigger';
/** The account a person mints a token of to call a function over HTTP (invoke, defrag's plan). */
export const INVOKER = 'invoker';

export function knativeAudience(namespace: string, target: string): string {
  return `serving.knative.dev/service/${namespace}/${kebab(target)}`.toLowerCase();
}

/** The OIDC ServiceAccount Knative creates for a Trigger, as the token's `sub`. */
export function triggerSender(namespace: string, trigger: string): string {
  const name = `${trigger}${TRIGGER_ACCOUNT_SUFFIX}`.toLowerCase();
  // Longer names are hashed by Knative; keep them predictable instead of copying the hash.
  if (name.length > 63)
    throw new Error(
      `Trigger ${trigger}: its OIDC ServiceAccount name would be hashed by Knative; use a Trigger name of at most ${63 - TRIGGER_ACCOUNT_SUFFIX.length} characters`,
    );
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The environment that turns sender authentication on for one function's Service. */
export function knativeSenderAuthEnv(namespace: string, target: string, f: FunctionDecl): Record<string, string> {
  const senders = f.events.flatMap((e, i) => {
    const trigger = triggerName(target, e, i);
    return trigger ? [triggerSender(namespace, trigger)] : [`system:serviceaccount:${namespace}:${INVOKER}`];
  });
  const tickers = tickSenders(f, (e, i) => triggerSender(namespace, triggerName(target, e, i)!));
  return {
    SENDER_AUTH: 'kubernetes',
    SENDER_AUTH_AUDIENCE: knativeAudience(namespace, target),
    SENDER_AUTH_SUBJECTS: [...new Set(senders)].join(','),
    ...(tickers.length ? { DUE_TICK_SENDERS: tickers.join(',') } : {}),
  };
}

/**
 * The senders of the due list's tick (DUE_TICK_SENDERS): a function that takes pod events and
 * a ping tick (podTerminated, whose plain POST is a pod) would otherwise take a tick from any
 * of its senders, and a tick holds a request and reads the due list. Other targets do not
 * read the variable, so none is rendered for them.
 */
export function tickSenders(f: FunctionDecl, senderOf: (e: EventDecl, index: number) => string): string[] {
  if (!f.events.some((e) => 'cloudEvent' in e)) return [];
  return [...new Set(f.events.flatMap((e, i) => ('schedule' in e && e.schedule.as === 'ping' ? [senderOf(e, i)] : [])))];
}

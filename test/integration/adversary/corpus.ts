// The hostile corpus: requests a careless client or an attacker sends to each target, each
// with the status class it must get. 4xx: the input can never succeed; 2xx: handled (nothing
// to do is handled); 'not 5xx': either, but never a retry-me answer for bad input.
import type { Target } from './env.js';
import { failedPod, type PodJson } from './events.js';
import { apiServerSourceEvent, json, pingTick, type Wire } from './wire.js';

export type Expect = '4xx' | '2xx' | 'not 5xx';

export interface Case {
  target: Target;
  sentence: string;
  wire: (ns: string) => Wire;
  expect: Expect;
}

const cases: Case[] = [];
const add = (target: Target, sentence: string, expect: Expect, wire: (ns: string) => Wire) => cases.push({ target, sentence, wire, expect });

/** Names and namespaces Kubernetes would never store. */
export const BAD_NAMES: [label: string, value: unknown][] = [
  ['..', '..'],
  ['.', '.'],
  ['a slash', 'a/b'],
  ['a traversal to kube-system', '../../kube-system/pods/x'],
  ['%2F', 'a%2Fb'],
  ['%2E%2E', '%2E%2E'],
  ['a NUL byte', 'a\u0000b'],
  ['a newline', 'a\nb'],
  ['a space', 'a b'],
  ['a query string', 'a?watch=true'],
  ['a fragment', 'a#b'],
  ['254 characters', 'a'.repeat(254)],
  ['uppercase', 'Victim'],
  ['a leading dash', '-victim'],
  ['non-ASCII', 'pöd'],
  ['the empty string', ''],
  ['a number', 42],
  ['a list', ['victim']],
  ['null', null],
];

const withMeta = (ns: string, name: string, meta: Record<string, unknown>): PodJson => failedPod(ns, name, meta);
const patched = (ns: string, change: (p: PodJson) => void): PodJson => {
  const p = failedPod(ns, 'shape');
  change(p);
  return p;
};

// --- podTerminated: names ------------------------------------------------------------------
for (const [label, value] of BAD_NAMES) {
  add('podTerminated', `a Failed-pod event whose name is ${label} is refused`, '4xx', (ns) =>
    apiServerSourceEvent(failedPod(ns, value as string), { mode: 'structured' }),
  );
  add('podTerminated', `a Failed-pod event whose namespace is ${label} is refused`, '4xx', () =>
    apiServerSourceEvent(failedPod(value as string, 'victim'), { mode: 'structured' }),
  );
}
for (const [label, value] of BAD_NAMES.slice(0, 8)) {
  add('podTerminated', `a reference-mode event whose name is ${label} is refused`, '4xx', (ns) =>
    apiServerSourceEvent(failedPod(ns, value as string), { reference: true, mode: 'structured' }),
  );
}

// --- podTerminated: the object's shape ---------------------------------------------------------
const shapes: [string, (p: PodJson) => void][] = [
  ['creationTimestamp null', (p) => (p.metadata.creationTimestamp = null)],
  ['creationTimestamp "yesterday"', (p) => (p.metadata.creationTimestamp = 'yesterday')],
  ['creationTimestamp a number', (p) => (p.metadata.creationTimestamp = 1700000000)],
  ['ownerReferences an object', (p) => (p.metadata.ownerReferences = {})],
  ['ownerReferences [{}]', (p) => (p.metadata.ownerReferences = [{}])],
  ['ownerReferences a string', (p) => (p.metadata.ownerReferences = 'Job')],
  ['labels a string', (p) => (p.metadata.labels = 'tidy=yes')],
  ['labels with a number value', (p) => (p.metadata.labels = { tidy: 1 })],
  ['annotations a list', (p) => (p.metadata.annotations = ['a'])],
  ['a uid that is a number', (p) => (p.metadata.uid = 7)],
  ['a resourceVersion that is an object', (p) => (p.metadata.resourceVersion = { v: 1 })],
  ['a deletionTimestamp that is not a time', (p) => (p.metadata.deletionTimestamp = 'soon')],
  ['metadata a string', (p) => (p.metadata = 'victim' as never)],
  ['status.phase a number', (p) => (p.status = { phase: 3 })],
  ['containerStatuses an object', (p) => (p.status = { phase: 'Failed', containerStatuses: { main: {} } })],
  ['an exitCode "three"', (p) => (p.status = { phase: 'Failed', containerStatuses: [{ name: 'main', state: { terminated: { exitCode: 'three' } } }] })],
  ['a restartCount of -1', (p) => (p.status = { phase: 'Failed', containerStatuses: [{ name: 'main', restartCount: -1, state: {} }] })],
  ['status null', (p) => (p.status = null as never)],
  ['spec a list', (p) => (p.spec = [] as never)],
  ['containers an object', (p) => (p.spec = { containers: { main: {} } })],
  ['kind "pod" in lower case', (p) => (p.kind = 'pod')],
  ['no kind', (p) => delete (p as Partial<PodJson>).kind],
];
for (const [label, change] of shapes) {
  add('podTerminated', `a Failed-pod event with ${label} is refused`, '4xx', (ns) => apiServerSourceEvent(patched(ns, change)));
}
// Large but valid (Kubernetes allows 256 KB of annotations, any number of labels).
add('podTerminated', 'a Failed-pod event with a 100 KB annotation is answered without a retry', 'not 5xx', (ns) =>
  apiServerSourceEvent(patched(ns, (p) => (p.metadata.annotations = { big: 'x'.repeat(100_000) }))),
);
add('podTerminated', 'a Failed-pod event with 5,000 labels is answered without a retry', 'not 5xx', (ns) =>
  apiServerSourceEvent(patched(ns, (p) => (p.metadata.labels = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`l${i}`, 'v']))))),
);
add('podTerminated', 'a Failed-pod event without a namespace is refused', '4xx', () => apiServerSourceEvent(failedPod(undefined, 'victim')));
// The event is a hint: what it says beyond which pod it names may be ignored, not acted on.
add('podTerminated', 'a Failed-pod event with status.phase "Exploded" is answered without a retry', 'not 5xx', (ns) =>
  apiServerSourceEvent(patched(ns, (p) => (p.status = { phase: 'Exploded' }))),
);
add('podTerminated', 'a Failed-pod event with apiVersion "v2" is answered without a retry', 'not 5xx', (ns) =>
  apiServerSourceEvent(patched(ns, (p) => (p.apiVersion = 'v2'))),
);
add('podTerminated', 'a Failed-pod event with a field nested 10,000 objects deep is answered without a retry', 'not 5xx', (ns) => {
  const w = apiServerSourceEvent(failedPod(ns, 'deep'));
  return { ...w, body: `${(w.body as string).slice(0, -1)},"deep":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}` };
});

// --- podTerminated: the CloudEvent framing -------------------------------------------------
const framing: [string, Expect, (ns: string) => Wire][] = [
  ['a binary event without ce-id is refused', '4xx', (ns) => apiServerSourceEvent(failedPod(ns, 'victim'), { headers: { 'ce-id': undefined } })],
  ['a binary event with ce-specversion 2.0 is refused', '4xx', (ns) => apiServerSourceEvent(failedPod(ns, 'victim'), { headers: { 'ce-specversion': '2.0' } })],
  [
    'a binary event with an unknown type is refused',
    '4xx',
    (ns) => apiServerSourceEvent(failedPod(ns, 'victim'), { headers: { 'ce-type': 'dev.knative.apiserver.resource.explode' } }),
  ],
  [
    'a binary event of a type nobody sends is refused',
    '4xx',
    (ns) => apiServerSourceEvent(failedPod(ns, 'victim'), { headers: { 'ce-type': 'com.example.delete-everything' } }),
  ],
  ['a binary event whose body is not JSON is refused', '4xx', (ns) => ({ ...apiServerSourceEvent(failedPod(ns, 'victim')), body: '{"metadata": ' })],
  ['a binary event whose body is empty is refused', '4xx', (ns) => ({ ...apiServerSourceEvent(failedPod(ns, 'victim')), body: '' })],
  ['a binary event whose body is JSON null is refused', '4xx', (ns) => ({ ...apiServerSourceEvent(failedPod(ns, 'victim')), body: 'null' })],
  ['a binary event whose body is a JSON list is refused', '4xx', (ns) => ({ ...apiServerSourceEvent(failedPod(ns, 'victim')), body: '[1,2]' })],
  ['a binary event whose body is a JSON number is refused', '4xx', (ns) => ({ ...apiServerSourceEvent(failedPod(ns, 'victim')), body: '12' })],
  ['a binary event sent as text/plain is refused', '4xx', (ns) => apiServerSourceEvent(failedPod(ns, 'victim'), { headers: { 'content-type': 'text/plain' } })],
  [
    'a binary event sent as XML is refused',
    '4xx',
    (ns) => ({ ...apiServerSourceEvent(failedPod(ns, 'victim'), { headers: { 'content-type': 'application/xml' } }), body: '<pod name=".."/>' }),
  ],
  [
    'a structured event whose data is a string is refused',
    '4xx',
    (ns) => ({
      headers: { 'content-type': 'application/cloudevents+json' },
      body: JSON.stringify({
        specversion: '1.0',
        id: '1',
        source: 's',
        type: 'dev.knative.apiserver.resource.update',
        data: JSON.stringify(failedPod(ns, 'victim')),
      }),
    }),
  ],
  [
    'a structured event with data_base64 that is not base64 is refused',
    '4xx',
    () => ({
      headers: { 'content-type': 'application/cloudevents+json' },
      body: JSON.stringify({ specversion: '1.0', id: '1', source: 's', type: 'dev.knative.apiserver.resource.update', data_base64: '%%%' }),
    }),
  ],
  [
    'a structured event without a type is refused',
    '4xx',
    (ns) => ({
      headers: { 'content-type': 'application/cloudevents+json' },
      body: JSON.stringify({ specversion: '1.0', id: '1', source: 's', data: failedPod(ns, 'victim') }),
    }),
  ],
  [
    'a structured batch of events is refused',
    '4xx',
    (ns) => ({
      headers: { 'content-type': 'application/cloudevents-batch+json' },
      body: JSON.stringify([{ specversion: '1.0', id: '1', source: 's', type: 'dev.knative.apiserver.resource.update', data: failedPod(ns, 'victim') }]),
    }),
  ],
  ['a body encoded as br (not offered) is refused', '4xx', (ns) => apiServerSourceEvent(failedPod(ns, 'victim'), { headers: { 'content-encoding': 'br' } })],
  [
    'a body claimed gzip that is not gzip is refused',
    '4xx',
    (ns) => apiServerSourceEvent(failedPod(ns, 'victim'), { headers: { 'content-encoding': 'gzip' } }),
  ],
  ['a GET is refused', '4xx', () => ({ headers: {}, body: '', method: 'GET' })],
  ['a PUT is refused', '4xx', (ns) => ({ ...apiServerSourceEvent(failedPod(ns, 'victim')), method: 'PUT' })],
  ['a DELETE is refused', '4xx', () => ({ headers: {}, body: '', method: 'DELETE' })],
  // podTerminated's own tick (issue 25: the due list's): handled, and it acts only on what is listed as due.
  ['a schedule tick is its due-list tick: handled, nothing outside the policy written', '2xx', () => pingTick()],
  ['a Node event is refused', '4xx', () => apiServerSourceEvent({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'kwok-shared-0' } })],
  ['a Job event is refused', '4xx', (ns) => apiServerSourceEvent({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: ns } })],
  [
    'a Namespace delete event is refused or ignored, never acted on',
    'not 5xx',
    (ns) => apiServerSourceEvent({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, { verb: 'delete' }),
  ],
  // A documented input (a person's `kubectl get pod -o json | curl`), not a bad one: handled,
  // and the stored pod decides (this copy names a uid the stored pod does not have).
  ['a plain Pod JSON body (a manual call) is handled, the stored pod deciding', '2xx', (ns) => json(failedPod(ns, 'victim'))],
];
for (const [sentence, expect, wire] of framing) add('podTerminated', sentence, expect, wire);

// --- podTerminated: well-formed events (handled, the stored pods decide) --------------------
const honest: [string, (ns: string) => PodJson, { verb?: 'add' | 'update' | 'delete'; reference?: boolean }][] = [
  ['a Failed event for a pod that does not exist is handled with nothing written', (ns) => failedPod(ns, 'never-existed'), {}],
  ['a Failed event naming a Running pod is handled, and the Running pod is not written', (ns) => failedPod(ns, 'decoy-running'), {}],
  ['a Failed event naming a Pending pod is handled, and the Pending pod is not written', (ns) => failedPod(ns, 'decoy-pending'), {}],
  [
    'a Failed event naming a Failed pod the policy does not select (no label) is handled with nothing written',
    (ns) => withMeta(ns, 'decoy-unlabelled', { labels: { tidy: 'yes' } }),
    {},
  ],
  ['a Failed event for a pod in kube-system is handled with nothing written', () => failedPod('kube-system', 'kube-apiserver'), {}],
  ['a Failed event for a pod in default is handled with nothing written', () => failedPod('default', 'victim'), {}],
  ['a reference-mode event for a Running pod is handled with nothing written', (ns) => failedPod(ns, 'decoy-running'), { reference: true }],
  ['a delete event for a pod is handled with nothing written', (ns) => failedPod(ns, 'decoy-running'), { verb: 'delete' }],
  ['an add event for the victim may delete it (the policy selects it as stored)', (ns) => failedPod(ns, 'victim'), { verb: 'add' }],
  ['a reference-mode event for a selected pod may delete it', (ns) => failedPod(ns, 'victim-2'), { reference: true }],
];
for (const [sentence, pod, o] of honest) add('podTerminated', sentence, '2xx', (ns) => apiServerSourceEvent(pod(ns), o));

// --- sweep -----------------------------------------------------------------------------------
add('sweep', 'a schedule tick sweeps (the policy selects only labelled pods of the test namespace)', '2xx', () => pingTick());
add('sweep', 'a pod event is refused', '4xx', (ns) => apiServerSourceEvent(failedPod(ns, 'victim')));
add('sweep', 'a pod event with name .. is refused', '4xx', (ns) => apiServerSourceEvent(failedPod(ns, '..')));
add('sweep', 'a tick whose body is not JSON is refused', '4xx', () => ({ ...pingTick(), body: '{' }));
add('sweep', 'a tick with ce-specversion 0.1 is refused', '4xx', () => ({ ...pingTick(), headers: { ...pingTick().headers, 'ce-specversion': '0.1' } }));
add('sweep', 'a CloudEvent of an unknown type is refused', '4xx', () => ({
  ...pingTick(),
  headers: { ...pingTick().headers, 'ce-type': 'com.example.sweep-harder' },
}));
add('sweep', 'a GET is refused', '4xx', () => ({ headers: {}, body: '', method: 'GET' }));
add('sweep', 'a body encoded as br is refused', '4xx', () => ({ ...pingTick(), headers: { ...pingTick().headers, 'content-encoding': 'br' } }));
add('sweep', 'a structured batch is refused', '4xx', () => ({ headers: { 'content-type': 'application/cloudevents-batch+json' }, body: '[]' }));
add('sweep', 'a Job delete event is refused', '4xx', (ns) =>
  apiServerSourceEvent({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: ns } }, { verb: 'delete' }),
);

// --- invoke ------------------------------------------------------------------------------------
const bomb = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'.split('').map((l, i) => `${l}: &${l} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
].join('\n');
const invokeCases: [string, Expect, (ns: string) => Wire][] = [
  ['a plan of the configured policy is handled', '2xx', () => json({ mode: 'plan' })],
  ['a plan limited to the test namespace is handled', '2xx', (ns) => json({ mode: 'plan', namespaces: [ns] })],
  ['an empty body plans', '2xx', () => json({})],
  ['a run without any token is refused', '4xx', () => json({ mode: 'run', confirm: true })],
  [
    'a run with a wrong token is refused',
    '4xx',
    () => json({ mode: 'run', confirm: true }, { authorization: 'Bearer wrong-token-0123456789', 'x-kube-tidy-invoke-token': 'wrong-token-0123456789' }),
  ],
  ['a run with the token in a Basic header is refused', '4xx', () => json({ mode: 'run', confirm: true }, { authorization: 'Basic YWRtaW46YWRtaW4=' })],
  ['a mode that does not exist is refused', '4xx', () => json({ mode: 'destroy' })],
  ['an unknown field is refused', '4xx', () => json({ mode: 'plan', force: true })],
  ['confirm "yes" (a string) is refused', '4xx', () => json({ mode: 'run', confirm: 'yes' })],
  ['namespaces [".."] is refused', '4xx', () => json({ mode: 'plan', namespaces: ['..'] })],
  ['namespaces ["a/b"] is refused', '4xx', () => json({ mode: 'plan', namespaces: ['a/b'] })],
  ['namespaces ["Kube-System"] is refused', '4xx', () => json({ mode: 'plan', namespaces: ['Kube-System'] })],
  ['namespaces with a NUL byte is refused', '4xx', () => json({ mode: 'plan', namespaces: ['a\u0000b'] })],
  ['namespaces as a string is refused', '4xx', () => json({ mode: 'plan', namespaces: 'default' })],
  ['101 namespaces are refused', '4xx', () => json({ mode: 'plan', namespaces: Array.from({ length: 101 }, (_, i) => `n${i}`) })],
  ['an unbalanced labelSelector is refused', '4xx', () => json({ mode: 'plan', labelSelector: 'app in (web' })],
  ['a labelSelector of punctuation is refused', '4xx', () => json({ mode: 'plan', labelSelector: '!!!=,,' })],
  ['a labelSelector of 5,000 characters is refused', '4xx', () => json({ mode: 'plan', labelSelector: `a=${'b'.repeat(5000)}` })],
  ['a labelSelector that is a number is refused', '4xx', () => json({ mode: 'plan', labelSelector: 5 })],
  ['a YAML alias bomb as the policy is refused', '4xx', () => json({ mode: 'plan', policy: bomb })],
  ['a policy that is not YAML is refused', '4xx', () => json({ mode: 'plan', policy: 'profiles: [' })],
  ['an empty policy object is refused', '4xx', () => json({ mode: 'plan', policy: {} })],
  ['a policy of the wrong kind is refused', '4xx', () => json({ mode: 'plan', policy: { apiVersion: 'v1', kind: 'Pod' } })],
  [
    'a policy with an unknown plugin is refused',
    '4xx',
    () =>
      json({
        mode: 'plan',
        policy: {
          apiVersion: 'descheduler/v1alpha2',
          kind: 'DeschedulerPolicy',
          profiles: [{ name: 'p', pluginConfig: [{ name: 'DeleteEverything' }], plugins: { deschedule: { enabled: ['DeleteEverything'] } } }],
        },
      }),
  ],
  [
    'a policy nested 10,000 levels deep is refused',
    '4xx',
    () => ({ headers: { 'content-type': 'application/json' }, body: `{"mode":"plan","policy":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}` }),
  ],
  ['a policy with a YAML tag for a JavaScript function is refused', '4xx', () => json({ mode: 'plan', policy: 'profiles: !!js/function "function(){}"' })],
  ['allowUnsupported "true" (a string) is refused', '4xx', () => json({ mode: 'plan', allowUnsupported: 'true' })],
  ['a body that is a JSON list is refused', '4xx', () => json([{ mode: 'plan' }])],
  ['a body that is JSON null is refused', '4xx', () => ({ headers: { 'content-type': 'application/json' }, body: 'null' })],
  ['a body that is not JSON is refused', '4xx', () => ({ headers: { 'content-type': 'application/json' }, body: '{mode: plan}' })],
  ['a GET is refused', '4xx', () => ({ headers: {}, body: '', method: 'GET' })],
  ['a pod CloudEvent is refused', '4xx', (ns) => apiServerSourceEvent(failedPod(ns, 'victim'))],
];
for (const [sentence, expect, wire] of invokeCases) add('invoke', sentence, expect, wire);

// --- jobDeleted ------------------------------------------------------------------------------
// Queued by Kueue (its queue-name label), so jobDeleted goes on to the workers: an unqueued Job is
// answered before any read, which would leave the cases below nothing to attack.
const job = (ns: string | undefined, name: unknown, queued = true) =>
  ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, ...(ns === undefined ? {} : { namespace: ns }), uid: 'u-1', ...(queued ? { labels: { 'kueue.x-k8s.io/queue-name': 'q' } } : {}) },
  }) as never;
for (const [label, value] of BAD_NAMES.slice(0, 14)) {
  add('jobDeleted', `a Job delete event whose name is ${label} is refused`, '4xx', (ns) =>
    apiServerSourceEvent(job(ns, value), { verb: 'delete', mode: 'structured' }),
  );
}
add('jobDeleted', 'a Job delete event whose namespace is .. is refused', '4xx', () => apiServerSourceEvent(job('..', 'train'), { verb: 'delete' }));
add('jobDeleted', 'a Job delete event without a namespace is refused', '4xx', () => apiServerSourceEvent(job(undefined, 'train'), { verb: 'delete' }));
add('jobDeleted', 'a delete event for a Job nobody copied is handled with nothing written', '2xx', (ns) =>
  apiServerSourceEvent(job(ns, 'train'), { verb: 'delete' }),
);
add('jobDeleted', 'a delete event for a Job Kueue never queued is nothing to do, with nothing written', '2xx', (ns) =>
  apiServerSourceEvent(job(ns, 'train', false), { verb: 'delete' }),
);
add('jobDeleted', 'a Pod delete event is refused', '4xx', (ns) => apiServerSourceEvent(failedPod(ns, 'victim'), { verb: 'delete' }));
add('jobDeleted', 'a schedule tick is refused', '4xx', () => pingTick());
add('jobDeleted', 'a body that is not JSON is refused', '4xx', (ns) => ({ ...apiServerSourceEvent(job(ns, 'train'), { verb: 'delete' }), body: '{"kind":' }));
add('jobDeleted', 'a GET is refused', '4xx', () => ({ headers: {}, body: '', method: 'GET' }));

// --- orphanSweep -----------------------------------------------------------------------------
add('orphanSweep', "a schedule tick sweeps (no copies carry this run's origin)", '2xx', () => pingTick('orphans'));
add('orphanSweep', 'a pod event is refused', '4xx', (ns) => apiServerSourceEvent(failedPod(ns, 'victim')));
add('orphanSweep', 'a Job delete event with name .. is refused', '4xx', (ns) => apiServerSourceEvent(job(ns, '..'), { verb: 'delete' }));
add('orphanSweep', 'a tick whose body is not JSON is refused', '4xx', () => ({ ...pingTick('orphans'), body: '[' }));
add('orphanSweep', 'a CloudEvent of an unknown type is refused', '4xx', () => ({
  ...pingTick('orphans'),
  headers: { ...pingTick('orphans').headers, 'ce-type': 'x.y' },
}));
add('orphanSweep', 'a GET is refused', '4xx', () => ({ headers: {}, body: '', method: 'GET' }));

// --- defrag (DRY_RUN: its real ticks would evict pods of other tests on the shared cluster) ---
add('defrag', 'a schedule tick in dry run plans and writes nothing', '2xx', () => pingTick('defrag'));
add('defrag', 'a plain POST plans and writes nothing', '2xx', () => json({}));
add('defrag', 'a pod event is refused', '4xx', (ns) => apiServerSourceEvent(failedPod(ns, 'victim')));
add('defrag', 'a pod event with name .. is refused', '4xx', (ns) => apiServerSourceEvent(failedPod(ns, '..')));
add('defrag', 'a Node event is refused', '4xx', () => apiServerSourceEvent({ apiVersion: 'v1', kind: 'Node', metadata: { name: '..' } }));
add('defrag', 'a tick whose body is not JSON is refused', '4xx', () => ({ ...pingTick('defrag'), body: '{{' }));
add('defrag', 'a GET is refused', '4xx', () => ({ headers: {}, body: '', method: 'GET' }));

// --- evacuation --------------------------------------------------------------------------------
for (const [label, value] of BAD_NAMES.slice(0, 14)) {
  add('evacuation', `a pod event whose name is ${label} is refused`, '4xx', (ns) =>
    apiServerSourceEvent(failedPod(ns, value as string), { mode: 'structured' }),
  );
}
add('evacuation', 'a pod event whose namespace is .. is refused', '4xx', () => apiServerSourceEvent(failedPod('..', 'victim')));
add('evacuation', 'a pod event without a namespace is refused', '4xx', () => apiServerSourceEvent(failedPod(undefined, 'victim')));
add('evacuation', 'a pod event for a pod outside its scope is handled with nothing written', '2xx', () => apiServerSourceEvent(failedPod('default', 'victim')));
add('evacuation', 'a pod event for a Running pod nobody marked is handled with nothing written', '2xx', (ns) =>
  apiServerSourceEvent(failedPod(ns, 'decoy-running')),
);
add('evacuation', 'a pod event for a pod that does not exist is handled with nothing written', '2xx', (ns) =>
  apiServerSourceEvent(failedPod(ns, 'never-existed')),
);
add('evacuation', 'a schedule tick polls and writes nothing when nothing is marked', '2xx', () => pingTick('evacuation'));
add('evacuation', 'an EvictionRequest event is refused', '4xx', (ns) =>
  apiServerSourceEvent({ apiVersion: 'coordination.k8s.io/v1alpha1', kind: 'EvictionRequest', metadata: { name: 'r', namespace: ns } }),
);
add('evacuation', 'a Node event is refused', '4xx', () => apiServerSourceEvent({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'kwok-shared-0' } }));
add('evacuation', 'a pod event with creationTimestamp null is refused', '4xx', (ns) =>
  apiServerSourceEvent(failedPod(ns, 'decoy-running', { creationTimestamp: null })),
);
add('evacuation', 'a pod event whose body is not JSON is refused', '4xx', (ns) => ({ ...apiServerSourceEvent(failedPod(ns, 'victim')), body: 'pod' }));
add('evacuation', 'a GET is refused', '4xx', () => ({ headers: {}, body: '', method: 'GET' }));

export const CORPUS: readonly Case[] = cases;

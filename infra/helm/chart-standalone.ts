// The standalone mode's RBAC, rendered from serverless.yml: one ServiceAccount holding the
// rules of every function the process runs (each function's rules only when values enable
// it), read and watch rights on the kinds it watches (the ApiServerSource's account in the
// Knative path) and on namespaces when selectors.namespaces is set, the policy ConfigMap by name, and the leader-election Lease in its own
// namespace; MultiKueue's Secret access in kueueNamespace only when values.multiKueue says so.
// Hand-written rules would drift from the functions' declared needs.
import { stringify } from 'yaml';
import { type Declaration, type Rule } from '../declaration/declaration.js';
import { resourceOf } from '../knative/rbac.js';
import { TEMPLATE_HEADER } from './chart-knative.js';

type Obj = Record<string, unknown>;
const RBAC = 'rbac.authorization.k8s.io/v1';
const LABELS = '{{- include "kube-tidy.labels" . | nindent 4 }}';

const toRule = (r: Pick<Rule, 'apiGroups' | 'resources' | 'verbs' | 'resourceNames'>): Obj => ({
  apiGroups: r.apiGroups,
  resources: r.resources,
  verbs: r.verbs,
  ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}),
});

/** A list item (`- ...`) indented by two, for a `rules:` block. */
const item = (o: Obj): string =>
  stringify([o], { lineWidth: 0 })
    .trimEnd()
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

/** Each function's rules of one scope, guarded by whether values enable that function. */
function guardedRules(decl: Declaration, scope: Rule['namespace']): string {
  return Object.entries(decl.functions)
    .map(([target, f]) => {
      const rules = f.rbac.filter((r) => r.namespace === scope);
      if (!rules.length) return '';
      return `{{- if has "${target}" .Values.standalone.functions }}\n${rules.map((r) => item(toRule(r))).join('\n')}\n{{- end }}`;
    })
    .filter((s) => s !== '')
    .join('\n');
}

function role(kind: 'ClusterRole' | 'Role', name: string, namespace: string | undefined, rules: string): string {
  const ns = namespace ? `\n  namespace: ${namespace}` : '';
  const bindingKind = kind === 'Role' ? 'RoleBinding' : 'ClusterRoleBinding';
  return [
    `apiVersion: ${RBAC}\nkind: ${kind}\nmetadata:\n  name: ${name}${ns}\n  labels:\n    ${LABELS}\nrules:\n${rules}`,
    `apiVersion: ${RBAC}\nkind: ${bindingKind}\nmetadata:\n  name: ${name}${ns}\n  labels:\n    ${LABELS}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ${kind}\n  name: ${name}\nsubjects:\n  - kind: ServiceAccount\n    name: {{ include "kube-tidy.standalone.account" . }}\n    namespace: {{ include "kube-tidy.namespace" . }}`,
  ].join('\n---\n');
}

export function standaloneRbacTemplate(decl: Declaration): string {
  const name = '{{ include "kube-tidy.prefix" . }}-standalone';
  const ns = '{{ include "kube-tidy.namespace" . }}';
  const watched = decl.provider.sources.apiserver.resources
    .map((r) => {
      const { group, resource } = resourceOf(r.apiVersion, r.kind);
      // The watch runs a LIST (for a resourceVersion) and a WATCH of each kind it routes.
      return item(toRule({ apiGroups: [group], resources: [resource], verbs: ['list', 'watch'] }));
    })
    .join('\n');
  // selectors.namespaces is applied by a LIST and WATCH of namespaces (shared/hosts/standalone/namespaces.ts).
  const namespaces = `{{- if .Values.selectors.namespaces }}\n${item(toRule({ apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'watch'] }))}\n{{- end }}`;
  const policyName = ({ ...decl.provider.environment }.POLICY_CONFIGMAP ?? '').split('/')[1];
  const own = [
    guardedRules(decl, 'own'),
    // create cannot be limited by name (the name is not known at authorization); the rest can.
    item({ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] }),
    item({
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: ['{{ include "kube-tidy.standalone.lease" . }}'],
      verbs: ['get', 'update'],
    }),
    ...(policyName ? [item({ apiGroups: [''], resources: ['configmaps'], resourceNames: [policyName], verbs: ['get', 'watch'] })] : []),
  ].filter((s) => s !== '');
  const docs = [
    `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {{ include "kube-tidy.standalone.account" . }}\n  namespace: ${ns}\n  labels:\n    ${LABELS}`,
    role('ClusterRole', name, undefined, `${guardedRules(decl, undefined)}\n${watched}\n${namespaces}`),
    role('Role', name, ns, own.join('\n')),
  ];
  const kueue = guardedRules(decl, 'kueue');
  // Only with MultiKueue (values.multiKueue, _helpers.tpl): kueueNamespace may not exist.
  const users = Object.entries(decl.functions)
    .filter(([, f]) => f.rbac.some((r) => r.namespace === 'kueue'))
    .map(([t]) => `(has "${t}" .Values.standalone.functions)`);
  const kueueDoc = kueue
    ? `{{- if and (or ${users.join(' ')}) (include "kube-tidy.multiKueue" .) }}\n---\n${role('Role', name, '{{ .Values.kueueNamespace }}', kueue)}\n{{- end }}`
    : '';
  return `${TEMPLATE_HEADER}{{- if eq .Values.mode "standalone" }}\n${docs.map((d) => `---\n${d}`).join('\n')}\n${kueueDoc}\n{{- end }}\n`;
}

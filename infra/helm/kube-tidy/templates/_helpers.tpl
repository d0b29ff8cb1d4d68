{{/* Where kube-tidy runs: values.namespace, else the release namespace. */}}
{{- define "kube-tidy.namespace" -}}
{{- default .Release.Namespace .Values.namespace -}}
{{- end }}

{{/* Prefix of cluster-scoped names, unique per installation. */}}
{{- define "kube-tidy.prefix" -}}
{{- default .Release.Name .Values.clusterPrefix -}}
{{- end }}

{{/* Labels of the objects written by hand (standalone mode, observability); the knative
     templates keep the generated manifests' own labels, object for object. */}}
{{- define "kube-tidy.labels" -}}
app.kubernetes.io/part-of: kube-tidy
app.kubernetes.io/name: kube-tidy
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{- define "kube-tidy.standalone.selector" -}}
app.kubernetes.io/name: kube-tidy
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: standalone
{{- end }}

{{- define "kube-tidy.standalone.account" -}}
{{- include "kube-tidy.prefix" . }}-standalone
{{- end }}

{{- define "kube-tidy.standalone.lease" -}}
{{- include "kube-tidy.prefix" . }}-standalone
{{- end }}

{{/* The policy ConfigMap's name, from serverless.yml's POLICY_CONFIGMAP (namespace/name). */}}
{{- define "kube-tidy.policyName" -}}kube-tidy-policy{{- end }}

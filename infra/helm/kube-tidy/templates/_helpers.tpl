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

{{/* "true" when the chart grants MultiKueue's Secret access in kueueNamespace (jobDeleted and
     orphanSweep read the worker kubeconfigs there). multiKueue: auto (the default) does when
     the cluster serves MultiKueueCluster (Kueue is installed, so its namespace exists);
     true and false decide. Without it the chart writes nothing outside its own namespace, so
     it installs on a cluster that has no kueue-system. */}}
{{- define "kube-tidy.multiKueue" -}}
{{- $v := toString .Values.multiKueue -}}
{{- if eq $v "true" -}}true
{{- else if eq $v "auto" -}}
{{- if .Capabilities.APIVersions.Has "kueue.x-k8s.io/v1beta2/MultiKueueCluster" }}true{{ end -}}
{{- else if ne $v "false" -}}
{{- fail (printf "multiKueue is %q: use auto, true or false" $v) -}}
{{- end -}}
{{- end }}

{{/* The Knative kinds knative mode creates (infra/knative/manifests; a unit test keeps the
     list equal to theirs). */}}
{{- define "kube-tidy.knative.kinds" -}}
serving.knative.dev/v1/Service eventing.knative.dev/v1/Broker eventing.knative.dev/v1/Trigger sources.knative.dev/v1/ApiServerSource sources.knative.dev/v1/PingSource
{{- end }}

{{/* EVENTS_SINK (docs/observing.md "Decisions as CloudEvents"): where every decision goes as a CloudEvent.
     values.events.sink: "broker" (knative mode: the release's Broker, as infra/knative/manifests
     has it; standalone mode has no Broker: off), "none", or a URL (either mode). With
     values.events.brokerRef set (knative mode) it is empty: a SinkBinding injects K_SINK. */}}
{{- define "kube-tidy.eventsSink" -}}
{{- $sink := toString (default "broker" .Values.events.sink) -}}
{{- if and (eq .Values.mode "knative") .Values.events.brokerRef -}}
{{- else if eq $sink "broker" -}}
{{- if eq .Values.mode "knative" -}}http://broker-ingress.knative-eventing.svc.cluster.local/{{ include "kube-tidy.namespace" . }}/kube-tidy{{- else -}}none{{- end -}}
{{- else if or (eq $sink "none") (hasPrefix "http://" $sink) (hasPrefix "https://" $sink) -}}
{{- $sink -}}
{{- else -}}
{{- fail (printf "events.sink is %q: use broker, none or an http(s) URL" $sink) -}}
{{- end -}}
{{- end }}

{{/* NODE_OPTIONS of the standalone process: V8's old space at standalone.heapPercent of
     standalone.resources.limits.memory (Mi or Gi; infra/bundle/heap.ts says why), so a raised
     limit raises the heap with it. No limit, or one in other units: empty (V8 sizes its heap from
     the node's memory). */}}
{{- define "kube-tidy.standalone.nodeOptions" -}}
{{- $s := .Values.standalone -}}
{{- $limit := toString (dig "limits" "memory" "" ($s.resources | default dict)) -}}
{{- $mib := 0 -}}
{{- if regexMatch "^[0-9]+Mi$" $limit }}{{ $mib = trimSuffix "Mi" $limit | atoi }}
{{- else if regexMatch "^[0-9]+Gi$" $limit }}{{ $mib = mul (trimSuffix "Gi" $limit | atoi) 1024 }}
{{- end -}}
{{- if and $mib $s.heapPercent -}}--max-old-space-size={{ div (mul $mib $s.heapPercent) 100 }}{{- end -}}
{{- end }}

{{/* The image every pod runs: values.image (by tag, or a whole reference with its digest), and
     with values.imageDigest, image@digest, so an install can pin what it reviewed while the tag
     stays readable. A digest in both places, or one that is not sha256 and 64 hex digits, stops
     the render: a pod must never run an image nobody named. */}}
{{- define "kube-tidy.image" -}}
{{- $image := toString .Values.image -}}
{{- $digest := toString (default "" .Values.imageDigest) -}}
{{- if not $digest -}}
{{- $image -}}
{{- else if not (regexMatch "^sha256:[0-9a-f]{64}$" $digest) -}}
{{- fail (printf "imageDigest is %q: use sha256: and 64 hex digits, as the release notes give it" $digest) -}}
{{- else if contains "@" $image -}}
{{- fail (printf "image %q already names a digest: set imageDigest only with an image by tag" $image) -}}
{{- else -}}
{{- printf "%s@%s" $image $digest -}}
{{- end -}}
{{- end }}

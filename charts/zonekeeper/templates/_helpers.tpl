{{/* Names and labels follow external-dns's chart so selectors and kubectl habits carry over. */}}
{{- define "zonekeeper.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "zonekeeper.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "zonekeeper.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "zonekeeper.selectorLabels" -}}
app.kubernetes.io/name: {{ include "zonekeeper.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "zonekeeper.labels" -}}
helm.sh/chart: {{ include "zonekeeper.chart" . }}
{{ include "zonekeeper.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The ServiceAccount: created (default name: fullname) or an existing one (default: "default"). */}}
{{- define "zonekeeper.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "zonekeeper.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "zonekeeper.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* provider is a name or, as in external-dns's chart, a map with a name. */}}
{{- define "zonekeeper.providerName" -}}
{{- if kindIs "string" .Values.provider }}
{{- .Values.provider }}
{{- else if kindIs "map" .Values.provider }}
{{- required "provider.name is required" .Values.provider.name }}
{{- else }}
{{- fail "provider must be a name or {name: ...}" }}
{{- end }}
{{- end }}

{{/*
"true" when more than one replica or leaderElection.enabled: two writers must never run at once. Not with
the builtin provider: each replica is a DNS server writing only its own memory, and a follower (whose
controllers do not run) would answer from empty zones.
*/}}
{{- define "zonekeeper.leaderElect" -}}
{{- if ne (include "zonekeeper.providerName" .) "builtin" }}
{{- if or (gt (int .Values.replicaCount) 1) .Values.leaderElection.enabled }}true{{ end }}
{{- end }}
{{- end }}

{{/* "true" when the cloudflare provider publishes something: provider.name, or a view's provider. */}}
{{- define "zonekeeper.usesCloudflare" -}}
{{- $main := eq (include "zonekeeper.providerName" .) "cloudflare" }}
{{- $view := false }}
{{- range .Values.views }}
{{- if and (kindIs "map" .) (eq (toString .provider) "cloudflare") }}{{ $view = true }}{{ end }}
{{- end }}
{{- if or $main $view }}true{{ end }}
{{- end }}

{{/* "true" when the chart runs zonekeeper's own DNS server. */}}
{{- define "zonekeeper.builtin" -}}
{{- if eq (include "zonekeeper.providerName" .) "builtin" }}true{{ end }}
{{- end }}

{{- define "zonekeeper.leaseName" -}}
{{- default (include "zonekeeper.fullname" .) .Values.leaderElection.leaseName }}
{{- end }}

{{/* The sources zonekeeper knows; anything else fails the render instead of crash-looping the pod. */}}
{{- define "zonekeeper.checkSources" -}}
{{- $known := include "zonekeeper.sourceReads" . | fromYaml | keys | sortAlpha }}
{{- if not .Values.sources }}
{{- fail (printf "sources: at least one source is required (%s)" (join ", " $known)) }}
{{- end }}
{{- range .Values.sources }}
{{- if not (has . $known) }}
{{- fail (printf "sources: %q is not a zonekeeper source (supported: %s)" . (join ", " $known)) }}
{{- end }}
{{- end }}
{{- end }}

{{/* Static AWS keys are used when both references are set, or when literal keys are given (chart Secret). */}}
{{- define "zonekeeper.awsLiteralKeys" -}}
{{- with .Values.aws.credentials }}
{{- if or .accessKey .secretKey }}
{{- if not (and .accessKey .secretKey) }}
{{- fail "aws.credentials: set both accessKey and secretKey, or neither" }}
{{- end }}true
{{- end }}
{{- end }}
{{- end }}

{{/*
The webhook provider: zonekeeper talks external-dns's webhook protocol to a provider sidecar in the same
pod, at --webhook-provider-url (default http://localhost:8888, which is where the sidecar listens, so the
chart passes no URL). The sidecar is rendered from provider.webhook exactly as external-dns's chart
renders it (same keys, container name `webhook`, port `http-webhook` on 8080 for /healthz and /metrics),
so an external-dns values file with a webhook provider works unchanged. One difference: the sidecar gets
the same locked-down securityContext as zonekeeper unless the values override it (external-dns's chart
leaves it empty).
*/}}

{{/* "true" when the chart runs the webhook sidecar. */}}
{{- define "zonekeeper.webhook" -}}
{{- if eq (include "zonekeeper.providerName" .) "webhook" }}true{{ end }}
{{- end }}

{{/* The sidecar's health and metrics port inside the pod, fixed as in external-dns's chart. */}}
{{- define "zonekeeper.webhookContainerPort" -}}8080{{- end }}

{{- define "zonekeeper.checkWebhook" -}}
{{- if include "zonekeeper.webhook" . }}
{{- if not (kindIs "map" .Values.provider) }}
{{- fail "provider: webhook needs the sidecar's image: write provider as {name: webhook, webhook: {image: {repository: ..., tag: ...}}}" }}
{{- end }}
{{- $w := .Values.provider.webhook }}
{{- if not (kindIs "map" $w) }}
{{- fail "provider.webhook is required with provider.name webhook: the sidecar's image, env, args, probes" }}
{{- end }}
{{- if not (and $w.image $w.image.repository $w.image.tag) }}
{{- fail "provider.webhook.image.repository and provider.webhook.image.tag are required with provider webhook: the provider sidecar's image" }}
{{- end }}
{{- $port := int .Values.service.port }}
{{- if has $port (list 8080 8888) }}
{{- fail (printf "service.port %d: with provider webhook the sidecar listens on 8080 (health, metrics) and 8888 (webhook API) in the same pod; pick another port for zonekeeper" $port) }}
{{- end }}
{{- if eq (int (dig "service" "port" 8080 $w)) $port }}
{{- fail (printf "provider.webhook.service.port %d is service.port too: the Service needs a port for each" $port) }}
{{- end }}
{{- end }}
{{- end }}

{{/* The sidecar container, an item of the pod's containers list. */}}
{{- define "zonekeeper.webhookContainer" -}}
{{- with .Values.provider.webhook }}
- name: webhook
  image: {{ printf "%s:%s" .image.repository (toString .image.tag) | quote }}
  imagePullPolicy: {{ .image.pullPolicy }}
  {{- with .securityContext }}
  securityContext:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .env }}
  env:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .args }}
  args:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  ports:
    - name: http-webhook
      protocol: TCP
      containerPort: {{ include "zonekeeper.webhookContainerPort" $ }}
  {{- with .livenessProbe }}
  livenessProbe:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .readinessProbe }}
  readinessProbe:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .extraVolumeMounts }}
  volumeMounts:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .resources }}
  resources:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

{{/* The ServiceMonitor endpoint scraping the sidecar's /metrics, an item of the endpoints list. */}}
{{- define "zonekeeper.webhookServiceMonitorEndpoint" -}}
{{- with .Values.provider.webhook.serviceMonitor }}
- port: http-webhook
  path: /metrics
  {{- with .interval }}
  interval: {{ . }}
  {{- end }}
  {{- with .scrapeTimeout }}
  scrapeTimeout: {{ . }}
  {{- end }}
  {{- with .scheme }}
  scheme: {{ . }}
  {{- end }}
  {{- with .tlsConfig }}
  tlsConfig:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .bearerTokenFile }}
  bearerTokenFile: {{ . }}
  {{- end }}
  {{- with .relabelings }}
  relabelings:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .metricRelabelings }}
  metricRelabelings:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

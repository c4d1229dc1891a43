{{/*
Command-line arguments for the providers, the views and the public address, one "- --flag=value" line
each (quoted), for the container's args. Secrets never appear here: they are mounted as files (see
_files.tpl) or read from the environment with secretKeyRef.
*/}}

{{/* A value that may be one string or a list of strings, as a list. */}}
{{- define "zonekeeper.asList" -}}
{{- if kindIs "slice" . }}{{ toJson . }}{{ else if . }}{{ toJson (list .) }}{{ else }}[]{{ end }}
{{- end }}

{{- define "zonekeeper.providerArgs" -}}
{{- $provider := include "zonekeeper.providerName" . }}
{{- if eq $provider "rfc2136" }}
{{- with .Values.rfc2136 }}
{{- range (include "zonekeeper.asList" .host | fromJsonArray) }}
- {{ printf "--rfc2136-host=%s" . | quote }}
{{- end }}
{{- if not (kindIs "invalid" .port) }}
- {{ printf "--rfc2136-port=%d" (int .port) | quote }}
{{- end }}
{{- range (include "zonekeeper.asList" .zone | fromJsonArray) }}
- {{ printf "--rfc2136-zone=%s" . | quote }}
{{- end }}
{{- with .tsigKeyname }}
- {{ printf "--rfc2136-tsig-keyname=%s" . | quote }}
{{- end }}
{{- with .tsigSecretAlg }}
- {{ printf "--rfc2136-tsig-secret-alg=%s" . | quote }}
{{- end }}
{{- if .tsigSecretSecretRef.name }}
- {{ printf "--rfc2136-tsig-secret-file=/etc/zonekeeper/rfc2136/%s" .tsigSecretSecretRef.key | quote }}
{{- end }}
{{- if .tsigAxfr }}
- --rfc2136-tsig-axfr
{{- end }}
{{- with .minTTL }}
- {{ printf "--rfc2136-min-ttl=%s" . | quote }}
{{- end }}
{{- if not (kindIs "invalid" .batchChangeSize) }}
- {{ printf "--rfc2136-batch-change-size=%d" (int .batchChangeSize) | quote }}
{{- end }}
{{- if .useTls }}
- --rfc2136-use-tls
{{- end }}
{{- if .skipTlsVerify }}
- --rfc2136-skip-tls-verify
{{- end }}
{{- end }}
{{- else if eq $provider "pdns" }}
{{- with .Values.pdns }}
{{- with .server }}
- {{ printf "--pdns-server=%s" . | quote }}
{{- end }}
{{- with .serverId }}
- {{ printf "--pdns-server-id=%s" . | quote }}
{{- end }}
{{- if .skipTlsVerify }}
- --pdns-skip-tls-verify
{{- end }}
{{- end }}
{{- else if eq $provider "builtin" }}
{{- with .Values.builtin }}
- {{ printf "--builtin-listen=:%d" (int .containerPort) | quote }}
{{- range .zones }}
- {{ printf "--builtin-zone=%s" . | quote }}
{{- end }}
{{- range .nameServers }}
- {{ printf "--builtin-ns=%s" . | quote }}
{{- end }}
{{- with .soaRname }}
- {{ printf "--builtin-soa-rname=%s" . | quote }}
{{- end }}
{{- with .soaMinimum }}
- {{ printf "--builtin-soa-minimum=%s" . | quote }}
{{- end }}
{{- range $i, $f := .zoneFiles }}
{{- $path := printf "/etc/zonekeeper/zone-files/%d/%s" $i $f.key }}
- {{ ternary (printf "--builtin-zone-file=%s=%s" (toString $f.view) $path) (printf "--builtin-zone-file=%s" $path) (not (empty $f.view)) | quote }}
{{- end }}
{{- if .tsigKeySecretRef.name }}
- {{ printf "--builtin-tsig-key-file=/etc/zonekeeper/builtin-tsig/%s" .tsigKeySecretRef.key | quote }}
{{- end }}
{{- range .axfrAllow }}
- {{ printf "--builtin-axfr-allow=%s" . | quote }}
{{- end }}
{{- range .notify }}
- {{ printf "--builtin-notify=%s" . | quote }}
{{- end }}
{{- if .useClientSubnet }}
- --builtin-use-client-subnet
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* The cloudflare provider's flags: for provider.name cloudflare, or a view on it (views[].provider). */}}
{{- define "zonekeeper.cloudflareArgs" -}}
{{- if include "zonekeeper.usesCloudflare" . }}
{{- with .Values.cloudflare }}
{{- if .proxied }}
- --cloudflare-proxied
{{- end }}
{{- with .recordComment }}
- {{ printf "--cloudflare-record-comment=%s" . | quote }}
{{- end }}
{{- if not (kindIs "invalid" .dnsRecordsPerPage) }}
- {{ printf "--cloudflare-dns-records-per-page=%d" (int .dnsRecordsPerPage) | quote }}
{{- end }}
{{- if not (kindIs "invalid" .batchChangeSize) }}
- {{ printf "--batch-change-size=%d" (int .batchChangeSize) | quote }}
{{- end }}
{{- if not (kindIs "invalid" .requestsPerSecond) }}
- {{ printf "--cloudflare-requests-per-second=%v" .requestsPerSecond | quote }}
{{- end }}
{{- if .regionalServices }}
- --cloudflare-regional-services
{{- end }}
{{- with .regionKey }}
- {{ printf "--cloudflare-region-key=%s" . | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{- define "zonekeeper.viewArgs" -}}
{{- range $i, $v := .Values.views }}
- {{ printf "--view=%s" $v.name | quote }}
{{- with $v.targets }}
- {{ printf "--view-targets=%s=%s" $v.name . | quote }}
{{- end }}
{{- if not (kindIs "invalid" $v.ttl) }}
- {{ printf "--view-ttl=%s=%d" $v.name (int $v.ttl) | quote }}
{{- end }}
{{- range $v.domainFilters }}
- {{ printf "--view-domain-filter=%s=%s" $v.name . | quote }}
{{- end }}
{{- range $v.excludeDomains }}
- {{ printf "--view-exclude-domains=%s=%s" $v.name . | quote }}
{{- end }}
{{- with $v.provider }}
- {{ printf "--view-provider=%s=%s" $v.name . | quote }}
{{- end }}
{{- with $v.coreDNSPrefix }}
- {{ printf "--view-coredns-prefix=%s=%s" $v.name . | quote }}
{{- end }}
{{- with $v.subnets }}
- {{ printf "--view-subnets=%s=%s" $v.name (join "," .) | quote }}
{{- end }}
{{- with $v.rfc2136 }}
{{- with .tsigKeyName }}
- {{ printf "--view-rfc2136-tsig-keyname=%s=%s" $v.name . | quote }}
{{- end }}
{{- if and .tsigSecretSecretRef .tsigSecretSecretRef.name }}
- {{ printf "--view-rfc2136-tsig-secret-file=%s=/etc/zonekeeper/views/%s/%s" $v.name $v.name .tsigSecretSecretRef.key | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{- define "zonekeeper.publicAddressArgs" -}}
{{- with .Values.publicAddress }}
{{- range .static }}
- {{ printf "--public-ip=%s" . | quote }}
{{- end }}
{{- with .fromNode }}
- {{ printf "--public-ip-from-node=%s" . | quote }}
{{- end }}
{{- with .fromService }}
- {{ printf "--public-ip-from-service=%s" . | quote }}
{{- end }}
{{- with .echoURL }}
- {{ printf "--public-ip-echo-url=%s" . | quote }}
{{- end }}
{{- with .stunServer }}
- {{ printf "--public-ip-stun-server=%s" . | quote }}
{{- end }}
{{- with .sourceOrder }}
- {{ printf "--public-ip-source-order=%s" (join "," .) | quote }}
{{- end }}
{{- with .refreshInterval }}
- {{ printf "--public-ip-refresh-interval=%s" . | quote }}
{{- end }}
{{- with .lookupTimeout }}
- {{ printf "--public-ip-lookup-timeout=%s" . | quote }}
{{- end }}
{{- if .allowPrivate }}
- --public-ip-allow-private
{{- end }}
{{- end }}
{{- end }}

{{/* The google provider's flags, for provider.name google. */}}
{{- define "zonekeeper.googleArgs" -}}
{{- if eq (include "zonekeeper.providerName" .) "google" }}
{{- with .Values.google }}
{{- with .project }}
- {{ printf "--google-project=%s" . | quote }}
{{- end }}
{{- with .zoneVisibility }}
- {{ printf "--google-zone-visibility=%s" . | quote }}
{{- end }}
{{- if not (kindIs "invalid" .batchChangeSize) }}
- {{ printf "--google-batch-change-size=%d" (int .batchChangeSize) | quote }}
{{- end }}
{{- if not (kindIs "invalid" .batchChangeInterval) }}
- {{ printf "--google-batch-change-interval=%v" .batchChangeInterval | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* The azure providers' flags, for provider.name azure or azure-private-dns. */}}
{{- define "zonekeeper.azureArgs" -}}
{{- if has (include "zonekeeper.providerName" .) (list "azure" "azure-private-dns") }}
{{- with .Values.azure }}
{{- if .configSecretRef.name }}
- {{ printf "--azure-config-file=/etc/zonekeeper/azure/%s" (required "azure.configSecretRef.key is required" .configSecretRef.key) | quote }}
{{- end }}
{{- with .resourceGroup }}
- {{ printf "--azure-resource-group=%s" . | quote }}
{{- end }}
{{- with .subscriptionId }}
- {{ printf "--azure-subscription-id=%s" . | quote }}
{{- end }}
{{- with .userAssignedIdentityClientId }}
- {{ printf "--azure-user-assigned-identity-client-id=%s" . | quote }}
{{- end }}
{{- if not (kindIs "invalid" .zonesCacheDuration) }}
- {{ printf "--azure-zones-cache-duration=%v" .zonesCacheDuration | quote }}
{{- end }}
{{- if not (kindIs "invalid" .maxRetriesCount) }}
- {{ printf "--azure-maxretries-count=%d" (int .maxRetriesCount) | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

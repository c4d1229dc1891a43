{{/*
Checks of the provider, view and public-address values. A mistake fails the render with the value named,
instead of a pod that crash-loops on a flag error or a secret file that is not there.
*/}}

{{/* A {name, key} reference: both or neither. */}}
{{- define "zonekeeper.checkSecretRef" -}}
{{- $ref := index . 1 }}
{{- if and $ref (or $ref.name $ref.key) (not (and $ref.name $ref.key)) }}
{{- fail (printf "%s: set both name and key of the Secret" (index . 0)) }}
{{- end }}
{{- end }}

{{- define "zonekeeper.checkProviders" -}}
{{- $provider := include "zonekeeper.providerName" . }}
{{- $v := .Values }}
{{- include "zonekeeper.checkSecretRef" (list "rfc2136.tsigSecretSecretRef" $v.rfc2136.tsigSecretSecretRef) }}
{{- include "zonekeeper.checkSecretRef" (list "pdns.apiKeySecretRef" $v.pdns.apiKeySecretRef) }}
{{- include "zonekeeper.checkSecretRef" (list "builtin.tsigKeySecretRef" $v.builtin.tsigKeySecretRef) }}
{{- include "zonekeeper.checkSecretRef" (list "cloudflare.apiTokenSecretRef" $v.cloudflare.apiTokenSecretRef) }}
{{- include "zonekeeper.checkSecretRef" (list "cloudflare.apiKeySecretRef" $v.cloudflare.apiKeySecretRef) }}
{{- if or $v.cloudflare.apiToken $v.cloudflare.apiKey }}
{{- fail "cloudflare.apiToken/apiKey: a literal credential is not accepted; put it in a Secret and set cloudflare.apiTokenSecretRef (or apiKeySecretRef with apiEmail) {name, key}" }}
{{- end }}
{{- if include "zonekeeper.usesCloudflare" . }}
{{- $cf := $v.cloudflare }}
{{- $envToken := false }}
{{- $envKey := false }}
{{- range $v.env }}
{{- if eq .name "CF_API_TOKEN" }}{{ $envToken = true }}{{ end }}
{{- if eq .name "CF_API_KEY" }}{{ $envKey = true }}{{ end }}
{{- end }}
{{- if and $cf.apiTokenSecretRef.name $cf.apiKeySecretRef.name }}
{{- fail "cloudflare.apiTokenSecretRef and cloudflare.apiKeySecretRef: set one (a token is preferred)" }}
{{- end }}
{{- if and $cf.apiTokenSecretRef.name $envToken }}
{{- fail "cloudflare.apiTokenSecretRef and env CF_API_TOKEN both set the Cloudflare token: keep one" }}
{{- end }}
{{- if and $cf.apiKeySecretRef.name (not $cf.apiEmail) }}
{{- fail "cloudflare.apiKeySecretRef needs cloudflare.apiEmail (CF_API_EMAIL)" }}
{{- end }}
{{- if not (or $cf.apiTokenSecretRef.name $cf.apiKeySecretRef.name $envToken $envKey) }}
{{- fail "provider cloudflare needs credentials: cloudflare.apiTokenSecretRef {name, key} (or apiKeySecretRef with apiEmail, or env CF_API_TOKEN)" }}
{{- end }}
{{- $onCloudflare := list }}
{{- range $v.views }}
{{- if or (eq (toString .provider) "cloudflare") (and (not .provider) (eq $provider "cloudflare")) }}{{ $onCloudflare = append $onCloudflare .name }}{{ end }}
{{- end }}
{{- if gt (len $onCloudflare) 1 }}
{{- fail (printf "views %s: one Cloudflare account holds one copy of its zones, so only one view can be published there (give the others provider: another kind, e.g. the internal view in coredns)" (join ", " $onCloudflare)) }}
{{- end }}
{{- end }}
{{- if $v.rfc2136.tsigSecret }}
{{- fail "rfc2136.tsigSecret: a literal secret is not accepted; put it in a Secret and set rfc2136.tsigSecretSecretRef {name, key}" }}
{{- end }}
{{- if $v.pdns.apiKey }}
{{- fail "pdns.apiKey: a literal key is not accepted; put it in a Secret and set pdns.apiKeySecretRef {name, key}" }}
{{- end }}
{{- if eq $provider "rfc2136" }}
{{- if not $v.rfc2136.host }}
{{- fail "rfc2136.host is required with provider rfc2136" }}
{{- end }}
{{- if not $v.rfc2136.zone }}
{{- fail "rfc2136.zone is required with provider rfc2136" }}
{{- end }}
{{- end }}
{{- if and (eq $provider "webhook") $v.views }}
{{- fail "views: the webhook protocol has one URL and a view needs a backend of its own; run one release per view" }}
{{- end }}
{{- if eq $provider "pdns" }}
{{- if not $v.pdns.server }}
{{- fail "pdns.server (the PowerDNS API URL) is required with provider pdns" }}
{{- end }}
{{- if $v.views }}
{{- fail "views: PowerDNS has no views; run one release per PowerDNS server" }}
{{- end }}
{{- if $v.pdns.apiKeySecretRef.name }}
{{- range $v.env }}
{{- if eq .name "EXTERNAL_DNS_PDNS_API_KEY" }}
{{- fail "pdns.apiKeySecretRef and env EXTERNAL_DNS_PDNS_API_KEY both set the PowerDNS API key: keep one" }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if eq $provider "builtin" }}
{{- if not (or $v.builtin.zones $v.domainFilters) }}
{{- fail "builtin.zones (or domainFilters) is required with provider builtin: the zones to serve" }}
{{- end }}
{{- if $v.leaderElection.enabled }}
{{- fail "leaderElection.enabled with provider builtin: every replica is its own DNS server and must write its own records; a follower would answer from empty zones" }}
{{- end }}
{{- $port := int $v.builtin.containerPort }}
{{- if or (lt $port 1024) (gt $port 65535) (eq $port (int $v.service.port)) }}
{{- fail (printf "builtin.containerPort %d: use an unprivileged port (1024-65535) other than service.port; the container has no NET_BIND_SERVICE, the DNS Service maps port 53 to it" $port) }}
{{- end }}
{{- if not (has $v.builtin.service.type (list "ClusterIP" "NodePort" "LoadBalancer")) }}
{{- fail (printf "builtin.service.type %q: must be ClusterIP, NodePort or LoadBalancer" $v.builtin.service.type) }}
{{- end }}
{{- range $i, $f := $v.builtin.zoneFiles }}
{{- if not (and $f.configMap $f.key) }}
{{- fail (printf "builtin.zoneFiles[%d]: set configMap and key" $i) }}
{{- end }}
{{- end }}
{{- if $v.builtin.axfrAllow }}
{{- if not $v.builtin.tsigKeySecretRef.name }}
{{- fail "builtin.axfrAllow needs builtin.tsigKeySecretRef: a transfer is signed with a key from that file" }}
{{- end }}
{{- end }}
{{- end }}
{{- include "zonekeeper.checkViews" . }}
{{- include "zonekeeper.checkPublicAddress" . }}
{{- end }}

{{- define "zonekeeper.checkViews" -}}
{{- $provider := include "zonekeeper.providerName" . }}
{{- $names := list }}
{{- $prefixes := list }}
{{- $withoutSubnets := 0 }}
{{- $public := false }}
{{- range $i, $v := .Values.views }}
{{- if not (kindIs "map" $v) }}
{{- fail (printf "views[%d]: each view is a map with at least a name" $i) }}
{{- end }}
{{- if not (and $v.name (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" (toString $v.name))) }}
{{- fail (printf "views[%d].name %q: a view name is a plain lower-case word (internal, external)" $i (toString $v.name)) }}
{{- end }}
{{- if has $v.name $names }}
{{- fail (printf "views[%d].name %q: declared twice" $i $v.name) }}
{{- end }}
{{- $names = append $names $v.name }}
{{- if and $v.targets (not (has $v.targets (list "reported" "public"))) }}
{{- fail (printf "views[%d].targets %q: must be reported or public" $i $v.targets) }}
{{- end }}
{{- if eq (toString $v.targets) "public" }}{{ $public = true }}{{ end }}
{{- if and (not (kindIs "invalid" $v.ttl)) (or (lt (int $v.ttl) 1) (gt (int64 $v.ttl) 2147483647)) }}
{{- fail (printf "views[%d].ttl: a TTL is a number of seconds from 1 to 2147483647" $i) }}
{{- end }}
{{- if and $v.provider (ne (toString $v.provider) "cloudflare") }}
{{- fail (printf "views[%d].provider %q: the chart publishes a view in cloudflare (or in provider.name); another kind needs its own release" $i (toString $v.provider)) }}
{{- end }}
{{- if and (eq (toString $v.provider) "cloudflare") (or $v.coreDNSPrefix $v.subnets $v.rfc2136) }}
{{- fail (printf "views[%d] (%s): coreDNSPrefix, subnets and rfc2136 place a view in coredns, builtin or rfc2136, not in its provider cloudflare" $i $v.name) }}
{{- end }}
{{- if $v.coreDNSPrefix }}
{{- if has $v.coreDNSPrefix $prefixes }}
{{- fail (printf "views[%d].coreDNSPrefix %s: another view writes there; give each view its own etcd prefix" $i $v.coreDNSPrefix) }}
{{- end }}
{{- $prefixes = append $prefixes $v.coreDNSPrefix }}
{{- end }}
{{- if and (not $v.subnets) (ne (toString $v.provider) "cloudflare") }}{{ $withoutSubnets = add1 $withoutSubnets }}{{ end }}
{{- if $v.rfc2136 }}
{{- if ne $provider "rfc2136" }}
{{- fail (printf "views[%d].rfc2136: only for provider rfc2136" $i) }}
{{- end }}
{{- include "zonekeeper.checkSecretRef" (list (printf "views[%d].rfc2136.tsigSecretSecretRef" $i) $v.rfc2136.tsigSecretSecretRef) }}
{{- end }}
{{- if and (eq $provider "rfc2136") (gt (len $.Values.views) 1) }}
{{- if not (and $v.rfc2136 $v.rfc2136.tsigKeyName $v.rfc2136.tsigSecretSecretRef $v.rfc2136.tsigSecretSecretRef.name) }}
{{- fail (printf "views[%d] (%s): with provider rfc2136 and several views, each view needs its own rfc2136.tsigKeyName and rfc2136.tsigSecretSecretRef (BIND picks the view by key)" $i $v.name) }}
{{- end }}
{{- end }}
{{- end }}
{{- if and (eq $provider "builtin") .Values.views (ne $withoutSubnets 1) }}
{{- fail "views: with provider builtin exactly one view has no subnets; it answers every client the others do not" }}
{{- end }}
{{- if $public }}
{{- with .Values.publicAddress }}
{{- if not (or .static .fromNode .fromService .echoURL .stunServer) }}
{{- fail "views: a view has targets public; set publicAddress.static, .fromNode, .fromService, .echoURL or .stunServer" }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{- define "zonekeeper.checkPublicAddress" -}}
{{- with .Values.publicAddress.fromService }}
{{- if not (regexMatch "^[a-z0-9][-a-z0-9]*/[a-z0-9][-a-z0-9.]*$" .) }}
{{- fail (printf "publicAddress.fromService %q: want namespace/name" .) }}
{{- end }}
{{- end }}
{{- end }}

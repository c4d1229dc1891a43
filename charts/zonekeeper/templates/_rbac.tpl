{{/*
RBAC rules, one rule per resource so that each can be shown to be needed (test/deploy). Sources get
read-only access to what they watch; zonekeeper writes only Events (and, in a separate Role, its lease).
Called with (dict "root" $ "scope" "cluster"|"namespace"): nodes are cluster-scoped and are left to the
"cluster" scope; everything else follows .Values.namespaced.
*/}}
{{/*
What each source kind reads, as internal/source/kinds declares it (Kind.Reads with the default flags;
test/deploy checks that the two agree, kind by kind). cluster: the resource is cluster-scoped, so even a
namespaced install grants it in a ClusterRole. The keys are the sources the chart accepts.
*/}}
{{- define "zonekeeper.sourceReads" -}}
service:
  - {group: "", resource: services}
  - {group: "", resource: pods}
  - {group: discovery.k8s.io, resource: endpointslices}
  - {group: "", resource: nodes, cluster: true}
ingress:
  - {group: networking.k8s.io, resource: ingresses}
crd:
  - {group: externaldns.k8s.io, resource: dnsendpoints}
node:
  - {group: "", resource: nodes, cluster: true}
pod:
  - {group: "", resource: pods}
  - {group: "", resource: nodes, cluster: true}
traefik-proxy:
{{- $traefikGroups := list }}
{{- if not $.Values.traefik.disableNew }}{{ $traefikGroups = append $traefikGroups "traefik.io" }}{{ end }}
{{- if $.Values.traefik.enableLegacy }}{{ $traefikGroups = append $traefikGroups "traefik.containo.us" }}{{ end }}
{{- range $g := $traefikGroups }}
  - {group: {{ $g }}, resource: ingressroutes}
  - {group: {{ $g }}, resource: ingressroutetcps}
  - {group: {{ $g }}, resource: ingressrouteudps}
{{- end }}
contour-httpproxy:
  - {group: projectcontour.io, resource: httpproxies}
openshift-route:
  - {group: route.openshift.io, resource: routes}
f5-virtualserver:
  - {group: cis.f5.com, resource: virtualservers}
f5-transportserver:
  - {group: cis.f5.com, resource: transportservers}
ambassador-host:
  - {group: getambassador.io, resource: hosts}
  - {group: "", resource: services}
gloo-proxy:{{/* every namespace, as external-dns reads them: a Proxy's VirtualServices, Gateways and Ingresses may be anywhere */}}
  - {group: gloo.solo.io, resource: proxies, cluster: true}
  - {group: gateway.solo.io, resource: virtualservices, cluster: true}
  - {group: gateway.solo.io, resource: gateways, cluster: true}
  - {group: "", resource: services, cluster: true}
  - {group: networking.k8s.io, resource: ingresses, cluster: true}
istio-gateway:
  - {group: networking.istio.io, resource: gateways}
  - {group: "", resource: services}
istio-virtualservice:
  - {group: networking.istio.io, resource: virtualservices}
  - {group: networking.istio.io, resource: gateways}
  - {group: "", resource: services}
kong-tcpingress:
  - {group: configuration.konghq.com, resource: tcpingresses}
skipper-routegroup:{{/* get, list and watch only: external-dns's chart also grants routegroups/status, which neither writes */}}
  - {group: zalando.org, resource: routegroups}
{{- range $route := list "httproute" "grpcroute" "tlsroute" "tcproute" "udproute" }}
gateway-{{ $route }}:
  - {group: gateway.networking.k8s.io, resource: gateways, cluster: true}
  - {group: gateway.networking.k8s.io, resource: {{ $route }}s}
  - {group: "", resource: namespaces, cluster: true}
{{- if $.Values.gateway.listenerSets }}{{/* --gateway-listener-sets: ListenerSets in every namespace */}}
  - {group: gateway.networking.k8s.io, resource: listenersets, cluster: true}
{{- end }}
{{- end }}
{{- end }}

{{/* "true" when a selected source reads a cluster-scoped resource (a namespaced install then needs a ClusterRole). */}}
{{- define "zonekeeper.readsClusterScoped" -}}
{{- $table := include "zonekeeper.sourceReads" . | fromYaml }}
{{- range $src := .Values.sources }}
{{- range $r := index $table $src }}
{{- if $r.cluster }}true{{ end }}
{{- end }}
{{- end }}
{{- end }}

{{- define "zonekeeper.readRules" -}}
{{- $v := .root.Values }}
{{- $namespacedKinds := eq .scope "namespace" }}{{/* this call renders the Role of a namespaced install */}}
{{- $namespacedKindsHere := or (and $v.namespaced $namespacedKinds) (and (not $v.namespaced) (not $namespacedKinds)) }}
{{- $table := include "zonekeeper.sourceReads" .root | fromYaml }}
{{- $seen := dict }}
{{- range $src := $v.sources }}
{{- range $r := index $table $src }}
{{- $key := printf "%s/%s" $r.group $r.resource }}
{{- if not (hasKey $seen $key) }}
{{- $_ := set $seen $key true }}
{{- if ternary (not $namespacedKinds) $namespacedKindsHere (default false $r.cluster) }}
- apiGroups: [{{ $r.group | quote }}]
  resources: [{{ $r.resource | quote }}]
  verbs: ["get", "list", "watch"]
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if and (has "crd" $v.sources) $namespacedKindsHere }}
# The status writer sends one merge PATCH to the status subresource; it never updates.
- apiGroups: ["externaldns.k8s.io"]
  resources: ["dnsendpoints/status"]
  verbs: ["patch"]
{{- end }}
{{- if $namespacedKindsHere }}
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- with $v.rbac.additionalPermissions }}
{{ toYaml . }}
{{- end }}
{{- end }}
{{- end }}

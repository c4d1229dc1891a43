{{/*
RBAC rules, one rule per resource so that each can be shown to be needed (test/deploy). Sources get
read-only access to what they watch; zonekeeper writes only Events (and, in a separate Role, its lease).
Called with (dict "root" $ "scope" "cluster"|"namespace"): nodes are cluster-scoped and are left to the
"cluster" scope; everything else follows .Values.namespaced.
*/}}
{{- define "zonekeeper.readRules" -}}
{{- $v := .root.Values }}
{{- $namespacedKinds := eq .scope "namespace" }}{{/* this call renders the Role of a namespaced install */}}
{{- $namespacedKindsHere := or (and $v.namespaced $namespacedKinds) (and (not $v.namespaced) (not $namespacedKinds)) }}
{{- if has "service" $v.sources }}
{{- if $namespacedKindsHere }}
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["discovery.k8s.io"]
  resources: ["endpointslices"]
  verbs: ["get", "list", "watch"]
{{- end }}
{{- if not $namespacedKinds }}
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch"]
{{- end }}
{{- end }}
{{- if and (has "ingress" $v.sources) $namespacedKindsHere }}
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["get", "list", "watch"]
{{- end }}
{{- if and (has "crd" $v.sources) $namespacedKindsHere }}
- apiGroups: ["externaldns.k8s.io"]
  resources: ["dnsendpoints"]
  verbs: ["get", "list", "watch"]
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

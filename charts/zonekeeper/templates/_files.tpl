{{/*
Files the container reads: TSIG secrets and key files from Secrets, zone files from ConfigMaps. Each is
mounted read-only in its own directory under /etc/zonekeeper, and its path is what _args.tpl passes.
Mounting (rather than env) keeps secrets out of the pod spec and out of `ps`; the kubelet reads the
Secret and ConfigMap, so zonekeeper's RBAC needs no access to either.
"zonekeeper.fileVolumes" and "zonekeeper.fileVolumeMounts" render YAML list items, nothing when unused.
*/}}

{{- define "zonekeeper.fileVolumes" -}}
{{- $provider := include "zonekeeper.providerName" . }}
{{- if and (has $provider (list "azure" "azure-private-dns")) .Values.azure.configSecretRef.name }}
- name: azure-config
  secret:
    secretName: {{ .Values.azure.configSecretRef.name }}
    defaultMode: 0440
    items:
      - key: {{ required "azure.configSecretRef.key is required" .Values.azure.configSecretRef.key }}
        path: {{ .Values.azure.configSecretRef.key }}
{{- end }}
{{- if and (eq $provider "google") .Values.google.serviceAccountSecretRef.name }}
- name: google-credentials
  secret:
    secretName: {{ .Values.google.serviceAccountSecretRef.name }}
    defaultMode: 0440
    items:
      - key: {{ required "google.serviceAccountSecretRef.key is required" .Values.google.serviceAccountSecretRef.key }}
        path: {{ .Values.google.serviceAccountSecretRef.key }}
{{- end }}
{{- if eq $provider "rfc2136" }}
{{- with .Values.rfc2136.tsigSecretSecretRef }}
{{- if .name }}
- name: rfc2136-tsig
  secret:
    secretName: {{ .name }}
    defaultMode: 0440
    items:
      - key: {{ .key }}
        path: {{ .key }}
{{- end }}
{{- end }}
{{- range $i, $v := $.Values.views }}
{{- if and $v.rfc2136 $v.rfc2136.tsigSecretSecretRef $v.rfc2136.tsigSecretSecretRef.name }}
- name: view-tsig-{{ $i }}
  secret:
    secretName: {{ $v.rfc2136.tsigSecretSecretRef.name }}
    defaultMode: 0440
    items:
      - key: {{ $v.rfc2136.tsigSecretSecretRef.key }}
        path: {{ $v.rfc2136.tsigSecretSecretRef.key }}
{{- end }}
{{- end }}
{{- end }}
{{- if eq $provider "builtin" }}
{{- range $i, $f := .Values.builtin.zoneFiles }}
- name: zone-file-{{ $i }}
  configMap:
    name: {{ $f.configMap }}
    items:
      - key: {{ $f.key }}
        path: {{ $f.key }}
{{- end }}
{{- with .Values.builtin.tsigKeySecretRef }}
{{- if .name }}
- name: builtin-tsig
  secret:
    secretName: {{ .name }}
    defaultMode: 0440
    items:
      - key: {{ .key }}
        path: {{ .key }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{- define "zonekeeper.fileVolumeMounts" -}}
{{- $provider := include "zonekeeper.providerName" . }}
{{- if and (has $provider (list "azure" "azure-private-dns")) .Values.azure.configSecretRef.name }}
- name: azure-config
  mountPath: /etc/zonekeeper/azure
  readOnly: true
{{- end }}
{{- if and (eq $provider "google") .Values.google.serviceAccountSecretRef.name }}
- name: google-credentials
  mountPath: /etc/zonekeeper/google
  readOnly: true
{{- end }}
{{- if eq $provider "rfc2136" }}
{{- if .Values.rfc2136.tsigSecretSecretRef.name }}
- name: rfc2136-tsig
  mountPath: /etc/zonekeeper/rfc2136
  readOnly: true
{{- end }}
{{- range $i, $v := $.Values.views }}
{{- if and $v.rfc2136 $v.rfc2136.tsigSecretSecretRef $v.rfc2136.tsigSecretSecretRef.name }}
- name: view-tsig-{{ $i }}
  mountPath: /etc/zonekeeper/views/{{ $v.name }}
  readOnly: true
{{- end }}
{{- end }}
{{- end }}
{{- if eq $provider "builtin" }}
{{- range $i, $f := .Values.builtin.zoneFiles }}
- name: zone-file-{{ $i }}
  mountPath: /etc/zonekeeper/zone-files/{{ $i }}
  readOnly: true
{{- end }}
{{- if .Values.builtin.tsigKeySecretRef.name }}
- name: builtin-tsig
  mountPath: /etc/zonekeeper/builtin-tsig
  readOnly: true
{{- end }}
{{- end }}
{{- end }}

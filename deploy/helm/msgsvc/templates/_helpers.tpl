{{- define "msgsvc.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "msgsvc.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "msgsvc.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* The image of a component: its own repository/tag, else the chart's. */}}
{{- define "msgsvc.image" -}}
{{- $img := .image | default dict -}}
{{- $repo := $img.repository | default .root.Values.image.repository -}}
{{- $tag := $img.tag | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- printf "%s:%s" $repo $tag -}}
{{- end -}}

{{/* The environment every process gets: settings in the clear, secrets as NAME_FILE. */}}
{{- define "msgsvc.env" -}}
- name: MSGSVC_ENV
  value: production
- name: MSGSVC_PUBLIC_URL
  value: {{ required "publicURL: the https:// address clients reach the API at is required" .Values.publicURL | quote }}
- name: MSGSVC_ADDR
  value: "0.0.0.0:8080"
- name: MSGSVC_METRICS_ADDR
  value: "0.0.0.0:9464"
{{- with .Values.trustedProxies }}
- name: MSGSVC_TRUSTED_PROXIES
  value: {{ . | quote }}
{{- end }}
{{- range $name, $key := .Values.secret.keys }}
- name: {{ $name }}_FILE
  value: /run/secrets/msgsvc/{{ $name }}
{{- end }}
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}

{{- define "msgsvc.secretVolume" -}}
- name: secrets
  secret:
    secretName: {{ required "secret.name: the Secret holding the secrets is required" .Values.secret.name }}
    defaultMode: 0440
    items:
    {{- range $name, $key := .Values.secret.keys }}
      - key: {{ $key }}
        path: {{ $name }}
    {{- end }}
{{- end -}}

{{/* The pod spec shared by serve, worker and the migration: args, ports and probes come from the caller. */}}
{{- define "msgsvc.container" -}}
image: {{ include "msgsvc.image" (dict "root" .root "image" .image) }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
args: [{{ .command | quote }}]
env:
  {{- include "msgsvc.env" .root | nindent 2 }}
volumeMounts:
  - name: secrets
    mountPath: /run/secrets/msgsvc
    readOnly: true
  - name: tmp
    mountPath: /tmp
securityContext:
  {{- toYaml .root.Values.securityContext | nindent 2 }}
{{- end -}}

{{- define "msgsvc.podExtras" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
volumes:
  {{- include "msgsvc.secretVolume" . | nindent 2 }}
  - name: tmp
    emptyDir: {}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

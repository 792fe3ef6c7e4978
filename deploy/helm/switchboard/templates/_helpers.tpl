{{/*
Names and labels, as `helm create` makes them.
*/}}
{{- define "switchboard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "switchboard.fullname" -}}
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

{{- define "switchboard.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "switchboard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
The selector of the `serve` pods: the Service, the PodDisruptionBudget and
the ServiceMonitor must not pick the Jobs' pods.
*/}}
{{- define "switchboard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "switchboard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: serve
{{- end }}

{{/*
The settings the bot treats as secrets (`secret:"true"` in cmd/bot's
Config; a test keeps this list in step with it). They may only come from a
Secret.
*/}}
{{- define "switchboard.secretSettings" -}}
DATABASE_URL NEO4J_PASSWORD OPENAI_API_KEY TAVILY_API_KEY SLACK_BOT_TOKEN SLACK_APP_TOKEN SLACK_SIGNING_SECRET DISCORD_BOT_TOKEN
{{- end }}

{{/* The settings the chart sets from its own values, and from which. */}}
{{- define "switchboard.managedSettings" -}}
{{- dict "HTTP_ADDR" "containerPort" "SWITCHBOARD_DATA_DIR" "data.mountPath" "SHUTDOWN_TIMEOUT" "shutdownTimeoutSeconds" | toJson }}
{{- end }}

{{/* The Secret that plain keys in secrets.env belong to. */}}
{{- define "switchboard.secretName" -}}
{{- default (include "switchboard.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{/* "true" when the release has a PostgreSQL URL, else "". */}}
{{- define "switchboard.database" -}}
{{- with .Values.secrets.env.DATABASE_URL }}{{ if .key }}true{{ end }}{{ end }}
{{- end }}

{{/* "true" when a documents volume is given, else "". */}}
{{- define "switchboard.documents" -}}
{{- if or .Values.documents.existingClaim .Values.documents.volume }}true{{ end }}
{{- end }}

{{/*
Refuses, with a message that says what to change, the values that would
deploy something broken. Included by every workload template, so that
`helm template -s` of one of them checks too.
*/}}
{{- define "switchboard.validate" -}}
{{- $v := .Values }}
{{- $db := include "switchboard.database" . }}
{{- if and (gt (int $v.replicaCount) 1) (not $db) }}
{{- fail (printf "replicaCount is %d, but more than one replica needs PostgreSQL: questions are stored jobs any replica takes, and threads, chat de-duplication and rate limits are shared through it. Reference its URL in secrets.env.DATABASE_URL ({key: KEY} of secrets.existingSecret, or {name: SECRET, key: KEY}), or set replicaCount=1." (int $v.replicaCount)) }}
{{- end }}
{{- if and (gt (int $v.replicaCount) 1) (eq (toString (index $v.config "DISCORD_MODE")) "gateway") }}
{{- fail (printf "replicaCount is %d with config.DISCORD_MODE=gateway: Discord's gateway is one connection per bot token. Use DISCORD_MODE=http (interactions through the ingress) or replicaCount=1." (int $v.replicaCount)) }}
{{- end }}
{{- $secret := splitList " " (include "switchboard.secretSettings" .) }}
{{- $managed := include "switchboard.managedSettings" . | fromJson }}
{{- range $name, $value := $v.config }}
{{- if has $name $secret }}
{{- fail (printf "config.%s is a secret: put it in a Secret and reference it in secrets.env.%s (values.yaml says how)." $name $name) }}
{{- end }}
{{- if hasKey $managed $name }}
{{- fail (printf "config.%s is set by the chart: use the value %s instead." $name (get $managed $name)) }}
{{- end }}
{{- end }}
{{- range $name, $ref := $v.secrets.env }}
{{- if not (has $name $secret) }}
{{- fail (printf "secrets.env.%s: %s is not one of the bot's secret settings (%s); put plain settings in config." $name $name (join ", " $secret)) }}
{{- end }}
{{- end }}
{{- range $v.extraEnv }}
{{- if or (hasKey $managed .name) (hasKey $v.config .name) (index $v.secrets.env .name) }}
{{- fail (printf "extraEnv sets %s, which config, secrets.env or the chart already sets." .name) }}
{{- end }}
{{- if and (has .name $secret) (hasKey . "value") }}
{{- fail (printf "extraEnv gives the secret setting %s a value: reference it in secrets.env.%s." .name .name) }}
{{- end }}
{{- end }}
{{- if and $v.documents.existingClaim $v.documents.volume }}
{{- fail "documents: set existingClaim or volume, not both." }}
{{- end }}
{{- if and (include "switchboard.documents" .) (not $db) }}
{{- fail "documents are set, but the ingest CronJob needs PostgreSQL (secrets.env.DATABASE_URL): without it each run would fill its own pod's embedded file, which the bot never reads." }}
{{- end }}
{{- end }}

{{/*
The environment of every container: the chart's settings, config, the
secret references, extraEnv.
*/}}
{{- define "switchboard.env" -}}
- name: HTTP_ADDR
  value: {{ printf ":%d" (int .Values.containerPort) | quote }}
- name: SWITCHBOARD_DATA_DIR
  value: {{ .Values.data.mountPath | quote }}
- name: SHUTDOWN_TIMEOUT
  value: {{ printf "%ds" (int .Values.shutdownTimeoutSeconds) | quote }}
{{- range $name, $value := .Values.config }}
{{- if not (kindIs "invalid" $value) }}
- name: {{ $name }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end }}
{{- $default := include "switchboard.secretName" . }}
{{- range $name, $ref := .Values.secrets.env }}
{{- if $ref }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ default $default $ref.name | quote }}
      key: {{ $ref.key | quote }}
      optional: {{ ne $name "DATABASE_URL" }}
{{- end }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The image, from repository and tag (default: appVersion). */}}
{{- define "switchboard.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/*
What every container of the chart shares: the image and its command, the
environment, the security context, the data volume and /tmp. Called with
(dict "root" $ "name" NAME "args" ARGS).
*/}}
{{- define "switchboard.container" -}}
{{- $ := .root }}
- name: {{ .name }}
  image: {{ include "switchboard.image" $ | quote }}
  imagePullPolicy: {{ $.Values.image.pullPolicy }}
  {{- with $.Values.image.command }}
  command: {{- toYaml . | nindent 4 }}
  {{- end }}
  args: {{- toYaml .args | nindent 4 }}
  env: {{- include "switchboard.env" $ | nindent 4 }}
  securityContext: {{- toYaml $.Values.securityContext | nindent 4 }}
  volumeMounts:
    - name: data
      mountPath: {{ $.Values.data.mountPath }}
    - name: tmp
      mountPath: /tmp
{{- end }}

{{/* The pod settings every workload shares, and its data and /tmp volumes. */}}
{{- define "switchboard.podSpec" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.serviceAccountName }}
serviceAccountName: {{ . }}
{{- end }}
automountServiceAccountToken: false
securityContext: {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity: {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{- define "switchboard.volumes" -}}
- name: data
  {{- toYaml .Values.data.volume | nindent 2 }}
- name: tmp
  emptyDir: {}
{{- end }}

#!/usr/bin/env bash
# The Helm chart's check (deploy/helm/switchboard), CI's "helm" step:
#   1. installs helm at a pinned version with `go install` from the module
#      proxy into $(go env GOPATH)/bin, once: later runs find it there (like
#      staticcheck in .ci/run);
#   2. `helm lint --strict` and `helm template` with the default values and
#      with ci/everything-values.yaml (every optional part switched on);
#   3. TestHelmChart (cmd/bot/helm_test.go), which renders the chart in more
#      ways and reads the manifests: probes and resources of every
#      container, non-root read-only containers, secrets referenced and
#      never inlined, and the values it must refuse, such as more than one
#      replica without a database URL.
set -euo pipefail
cd "$(dirname "$0")/.."

HELM_VERSION=v3.22.0
# What helm's own Makefile stamps into a release build: the version, and the
# Kubernetes version rendering and linting assume, one minor past its
# client-go (k8s.io/client-go v0.37 in helm v3.22.0). Without them a binary
# built by go install says it is "v3.22" and assumes Kubernetes 1.20, below
# the chart's kubeVersion.
HELM_LDFLAGS="-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
for pkg in pkg/chartutil pkg/lint/rules; do
	HELM_LDFLAGS+=" -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=37"
done
helm="$(go env GOPATH)/bin/helm"
chart=deploy/helm/switchboard

if [ "$("$helm" version --template '{{.Version}}' 2>/dev/null)" != "$HELM_VERSION" ]; then
	echo "helm-check: installing helm $HELM_VERSION (go install; a few minutes the first time)" >&2
	# Outside the module, so that nothing is added to go.mod or go.sum.
	(cd / && go install -ldflags "$HELM_LDFLAGS" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION")
fi

for values in "" "$chart/ci/everything-values.yaml"; do
	args=()
	if [ -n "$values" ]; then
		args=(-f "$values")
	fi
	echo "helm-check: helm lint and helm template ${values:-with the default values}" >&2
	"$helm" lint --strict "$chart" "${args[@]}"
	"$helm" template switchboard "$chart" "${args[@]}" >/dev/null
done

HELM="$helm" go test ./cmd/bot -run '^TestHelmChart' -count=1

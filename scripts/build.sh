#!/usr/bin/env bash
# The release build of Switchboard: one static binary (CGO_ENABLED=0; the
# embedded SQLite driver is pure Go) with its version, commit and build date
# stamped in, as `switchboard version` prints them.
#
# This is the only release build: `make build` runs it, the Dockerfile runs
# it, and cmd/bot/release_test.go runs it and checks that the binary is
# static and prints the injected version.
#
#   scripts/build.sh                        # → bin/switchboard
#   OUT=/tmp/switchboard VERSION=v1.2.3 scripts/build.sh
#
# Environment (all optional; values must not contain spaces):
#   OUT      where the binary goes (default bin/switchboard)
#   VERSION  default: `git describe --tags --always --dirty`, else "dev"
#   COMMIT   default: `git rev-parse HEAD`, else "none"
#   DATE     default: SOURCE_DATE_EPOCH if set (reproducible builds), else now; UTC, RFC 3339
set -euo pipefail
cd "$(dirname "$0")/.."

out="${OUT:-bin/switchboard}"
version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
commit="${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo none)}"
date="${DATE:-}"
if [[ -z "$date" ]]; then
  if [[ -n "${SOURCE_DATE_EPOCH:-}" ]]; then
    date="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
  else
    date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  fi
fi

CGO_ENABLED=0 go build -trimpath \
  -ldflags "-s -w -X main.version=$version -X main.commit=$commit -X main.date=$date" \
  -o "$out" ./cmd/bot
echo "built $out: switchboard $version (commit $commit, built $date)" >&2

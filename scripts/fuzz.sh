#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 5s), one
# after another: `go test -fuzz` takes one target of one package at a time.
# The seed corpus (testdata/fuzz/...) already runs in `go test ./...`; this
# looks for new inputs too. A failure leaves the input that broke the
# target in that package's testdata/fuzz/NAME: commit it with the fix, so
# that it runs in every `go test` from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-5s}"

targets=$(grep -rl --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . |
	while read -r file; do
		dir=$(dirname "$file")
		grep -oE '^func Fuzz[A-Za-z0-9_]*' "$file" | sed "s|^func |$dir |"
	done | sort -u)

n=0
while read -r dir name; do
	[ -n "$dir" ] || continue
	echo "fuzz: $dir $name for $fuzztime" >&2
	if ! out=$(go test "$dir" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" 2>&1); then
		echo "$out" >&2
		echo "fuzz: $dir $name failed; the input is in $dir/testdata/fuzz/$name" >&2
		exit 1
	fi
	n=$((n + 1))
done <<<"$targets"
echo "fuzz: $n targets ran for $fuzztime each, no failures" >&2

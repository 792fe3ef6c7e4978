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

# bare_deadline reports whether a failed run is Go's own fuzz-coordinator
# race at the end of -fuzztime (go.dev/issue/75804, fixed in Go 1.27): a
# bare "context deadline exceeded" with no failing input written. Such a
# run found nothing, so it is tried again, at most twice; a real finding
# always writes its input and fails at once.
bare_deadline() {
	grep -q 'context deadline exceeded' <<<"$1" && ! grep -q 'Failing input written to' <<<"$1"
}

n=0
while read -r dir name; do
	[ -n "$dir" ] || continue
	for try in 1 2 3; do
		echo "fuzz: $dir $name for $fuzztime" >&2
		if out=$(go test "$dir" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" 2>&1); then
			break
		fi
		if [ "$try" -lt 3 ] && bare_deadline "$out"; then
			echo "fuzz: $dir $name hit the fuzz coordinator's deadline race (go.dev/issue/75804), nothing found; again" >&2
			continue
		fi
		echo "$out" >&2
		echo "fuzz: $dir $name failed; the input is in $dir/testdata/fuzz/$name" >&2
		exit 1
	done
	n=$((n + 1))
done <<<"$targets"
echo "fuzz: $n targets ran for $fuzztime each, no failures" >&2

#!/usr/bin/env bash
# Runs the frozen evaluation sets of eval/corpora (eval/corpora/README.md):
# every corpus folder with a frozen.jsonl, each on its own documents in a
# store of its own, and prints one table row per corpus. Other arguments go
# to `switchboard eval`: --split dev for the development sets, --details for each
# corpus's full report, --json, thresholds such as --max-confidently-wrong 0.
# With no model configured (OPENAI_API_KEY and OPENAI_BASE_URL unset) this measures the
# offline engine.
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
for dir in eval/corpora/*/; do
	if [ -f "$dir/frozen.jsonl" ]; then
		args+=(--corpus "${dir%/}")
	fi
done
if [ ${#args[@]} -eq 0 ]; then
	echo "eval-frozen: no corpus with a frozen.jsonl under eval/corpora" >&2
	exit 1
fi
exec go run ./cmd/bot eval "${args[@]}" "$@"

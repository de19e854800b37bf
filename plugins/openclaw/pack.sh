#!/usr/bin/env bash
# Packs the plugin as the npm tarball `openclaw plugins install <tarball>` takes: the compiled JavaScript
# (`dist/`, which OpenClaw requires of an installed package), the manifest, and the one runtime dependency
# (`typebox`, from the npm registry) bundled. Prints the tarball's path.
#   bash plugins/openclaw/pack.sh OUT_DIR        # TSC=/path/to/tsc (default: `tsc` on PATH)
# Needs `node_modules` here with `openclaw` and `@types/node` for the compile (`npm install` here, or the
# e2e test's link to its OpenClaw install).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp -r "$here"/index.ts "$here"/src "$here"/openclaw.plugin.json "$here"/package.json "$here"/tsconfig.json \
  "$here"/tsconfig.build.json "$stage"/
ln -s "$here/node_modules" "$stage/node_modules"
(cd "$stage" && "${TSC:-tsc}" -p tsconfig.build.json)
rm "$stage/node_modules"
node -e '
const fs = require("fs");
const p = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
delete p.private; delete p.devDependencies; delete p.scripts;
p.openclaw.extensions = ["./dist/index.js"];
p.files = ["dist/", "openclaw.plugin.json"];
p.bundleDependencies = Object.keys(p.dependencies);
fs.writeFileSync(process.argv[1], JSON.stringify(p, null, 2) + "\n");
' "$stage/package.json"
cd "$stage"
npm install --omit=dev --no-audit --no-fund --loglevel=error >&2
name="$(npm pack --loglevel=error --pack-destination "$out" | tail -1)"
echo "$out/$name"

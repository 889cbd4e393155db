#!/bin/sh
# Rebuilds static/vendor/codemirror/ from the npm registry (needs node and npm; the app itself never does).
#   cd tools/codemirror && ./build.sh
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
out=../../static/vendor/codemirror
mkdir -p "$out"
./node_modules/.bin/esbuild entry.js --bundle --format=esm --minify --legal-comments=none --target=es2020 \
  --outfile="$out/codemirror.mjs"
node licenses.mjs > "$out/LICENSE"
node -e 'const l=require("./package-lock.json").packages;console.log(Object.entries(l).filter(([k])=>k.startsWith("node_modules/@codemirror/")||k.startsWith("node_modules/@lezer/")||k==="node_modules/style-mod"||k==="node_modules/w3c-keyname"||k==="node_modules/crelt").map(([k,v])=>k.slice(13)+" "+v.version).join("\n"))' > "$out/VERSIONS"
echo "built $out/codemirror.mjs ($(wc -c < "$out/codemirror.mjs") bytes)"

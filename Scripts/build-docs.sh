#!/usr/bin/env bash
# Builds NetLayer's API reference with the toolchain's own `docc` (no package dependency):
# symbol graphs from a build of the NetLayer target, then `docc convert` with the catalog in
# Sources/NetLayer/NetLayer.docc. Fails on any documentation warning (a broken ``link``, an
# undocumented parameter).
#
#   bash Scripts/build-docs.sh                 # writes .build-docs/NetLayer.doccarchive
#   DOCS_OUTPUT=/some/dir bash Scripts/build-docs.sh
#
# Open the archive with `docc preview` or serve it as static files
# (`docc process-archive transform-for-static-hosting`).
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docs
graphs="$scratch/symbol-graphs"
output="${DOCS_OUTPUT:-$scratch/NetLayer.doccarchive}"
rm -rf "$graphs" "$output"
mkdir -p "$graphs"

swift build --target NetLayer --scratch-path "$scratch" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public

docc_bin=$(command -v docc || true)
if [ -z "$docc_bin" ]; then
    # Xcode keeps docc out of PATH.
    docc_bin=$(xcrun --find docc 2>/dev/null || true)
fi
if [ -z "$docc_bin" ]; then
    echo "docc not found: it ships with Swift 5.6+ toolchains (usr/bin/docc) and Xcode." >&2
    exit 1
fi

log=$(mktemp)
"$docc_bin" convert Sources/NetLayer/NetLayer.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name NetLayer --fallback-bundle-identifier org.netlayer.NetLayer \
    --output-path "$output" 2>&1 | tee "$log"
if grep -Eq '^(warning|error):' "$log"; then
    echo "docc reported problems (above); the reference must build cleanly." >&2
    exit 1
fi
echo "API reference: $output"

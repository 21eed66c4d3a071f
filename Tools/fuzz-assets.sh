#!/usr/bin/env bash
# Fuzzes ARSimAssets' USDZ, USDC and USDA readers with libFuzzer (and AddressSanitizer) for SECONDS
# (default 60), starting from the test fixtures. Builds ARSimMath and ARSimAssets with swiftc into
# out/fuzz/ (SwiftPM cannot build one target with -sanitize=fuzzer). Findings land in out/fuzz/.
# Usage: Tools/fuzz-assets.sh [SECONDS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
out="$root/out/fuzz"
mkdir -p "$out/corpus"
cd "$out"
flags=(-O -sanitize=fuzzer,address -parse-as-library -swift-version 6)
swiftc "${flags[@]}" -emit-module -emit-library -static -module-name ARSimMath \
  "$root"/Sources/ARSimMath/*.swift -o libARSimMath.a
swiftc "${flags[@]}" -emit-module -emit-library -static -module-name ARSimAssets -I . \
  "$root"/Sources/ARSimAssets/*.swift -o libARSimAssets.a
swiftc "${flags[@]}" -I . "$root/Tools/fuzz/AssetsFuzz.swift" libARSimAssets.a libARSimMath.a -o assets-fuzz
# Seeds: each fixture behind the byte that selects its reader.
fixtures="$root/Tests/ARSimAssetsTests/Fixtures"
for f in "$fixtures"/*.usdz "$fixtures"/*.usdc "$fixtures"/*.usda; do
  case "$f" in *.usdz) k='\x00' ;; *.usdc) k='\x01' ;; *) k='\x02' ;; esac
  { printf "$k"; cat "$f"; } > "corpus/$(basename "$f")"
done
./assets-fuzz -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$out/" corpus

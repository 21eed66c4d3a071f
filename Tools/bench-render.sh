#!/usr/bin/env bash
# Prints the renderer's speed: median milliseconds per 640x480 frame (4 supersamples) of a release
# build of `arsim generate --bench` for each shipped scene, and the CPU time summed over threads.
# Wall times depend on what else the machine is doing; the CPU figure much less.
set -euo pipefail
cd "$(dirname "$0")/.."
# SCRATCH_PATH (optional) is passed to swift build as --scratch-path.
build=(swift build -c release ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"})
"${build[@]}" --product arsim 2>&1 | tail -n 1 >&2
arsim="$("${build[@]}" --show-bin-path)/arsim"
for name in tabletop room stress; do
  echo "$name:"
  "$arsim" generate "Datasets/scenes/$name.json" --bench --frames "${FRAMES:-30}" | sed 's/^/  /'
done

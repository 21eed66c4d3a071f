#!/usr/bin/env bash
# Prints the renderer's speed: median milliseconds per 640x480 frame (4 supersamples) of a release
# build of `arsim generate --bench` for each shipped scene, and the CPU time summed over threads.
# Wall times depend on what else the machine is doing; the CPU figure much less.
source "$(dirname "$0")/lib.sh"
# ARSIM (optional) names the arsim binary; default: a release build of this checkout (SCRATCH_PATH,
# optional, is passed to swift build as --scratch-path).
arsim_binary
for name in tabletop room stress; do
  echo "$name:"
  "$ARSIM" generate "Datasets/scenes/$name.json" --bench --frames "${FRAMES:-30}" | sed 's/^/  /'
done

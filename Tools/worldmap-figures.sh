#!/usr/bin/env bash
# Issue 16's world-map figures on the full-size tabletop (640x480, 30 fps, 10 s), generated from
# Datasets/scenes/tabletop.json into out/ (not committed):
#
#   Tools/worldmap-figures.sh [RECORDING [MODE]]   default: out/datasets/tabletop-full (generated
#                                                  once), the recording's mode; MODE rgbd or mono
#
# Session A (frames 0-199, 0 to 6.6 s of the orbit) saves a world map; session B (frames 120 to the
# end, from 4 s) starts from it. Prints B's summary line `map: relocalized at frame N (K frames ...)`
# (B's first view is one A saw: K is the delay from the first overlapping view), B's ATE in the map's
# world and how far the restored anchors are from their place in A (Tools/worldmap_figures.py;
# through A's Sim(3) alignment in mono, whose scale is A's own).
# ARSIM names the arsim binary; default: a release build of this checkout.
source "$(dirname "$0")/lib.sh"
recording="${1:-out/datasets/tabletop-full}"
mode=()
[ -n "${2:-}" ] && mode=(--mode "$2")
sim3=()
[ "${2:-}" = mono ] && sim3=(--sim3)
arsim_binary
if [ ! -f "$recording/session.json" ]; then
  "$ARSIM" generate Datasets/scenes/tabletop.json "$recording" >&2
fi
frames=$(grep -vc '^#' "$recording/frames.txt")
a_last=$((frames * 2 / 3 - 1))
b_first=$((frames * 2 / 5))
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$ARSIM" replay "$recording" "${mode[@]}" --frames "0-$a_last" --save-map "$out/a.map" --trajectory "$out/a.txt" \
  --events "$out/a.jsonl" | grep -E '^(states|map saved):'
"$ARSIM" replay "$recording" "${mode[@]}" --frames "$b_first-" --load-map "$out/a.map" --trajectory "$out/b.txt" \
  --events "$out/b.jsonl" | grep -E '^(states|map|planes):'
Tools/python.sh Tools/worldmap_figures.py "$recording/groundtruth.txt" "$out/a.txt" "$out/a.jsonl" "$out/b.txt" "${sim3[@]}"

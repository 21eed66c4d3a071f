#!/usr/bin/env bash
# Writes every replay output (--events, --trajectory, --hits) of each recording into OUT/NAME/, so
# two builds can be compared byte for byte (a refactor that changes no behaviour gives no diff):
#
#   Tools/replay-outputs.sh OUT [RECORDING...]      default: Datasets/* and out/datasets/*
#   diff -r BEFORE AFTER
#
# ARSIM (optional) names the arsim binary; default: a release build of this checkout.
source "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || usage_error "Tools/replay-outputs.sh OUT [RECORDING...]"
out="$1"
shift
recordings=("$@")
if [ ${#recordings[@]} -eq 0 ]; then
  for dir in Datasets/* out/datasets/*; do
    [ -f "$dir/session.json" ] && recordings+=("$dir")
  done
fi
arsim_binary
mkdir -p "$out"
for recording in "${recordings[@]}"; do
  name="$(echo "$recording" | sed 's|^\(\.\./\)*||' | tr '/' '_')"
  mkdir -p "$out/$name"
  taps=()
  if [ -f "$recording/taps.txt" ]; then taps=(--taps "$recording/taps.txt" --hits "$out/$name/hits.jsonl"); fi
  echo "replay-outputs: $recording" >&2
  "$ARSIM" replay "$recording" --events "$out/$name/events.jsonl" \
    --trajectory "$out/$name/trajectory.txt" "${taps[@]}" >"$out/$name/summary.txt"
  # The monocular pass too where the recording has depth and images (its replay tracked RGB-D).
  if grep -q '^tracking: rgbd' "$out/$name/summary.txt"; then
    "$ARSIM" replay "$recording" --mode mono --events "$out/$name/events-mono.jsonl" \
      --trajectory "$out/$name/trajectory-mono.txt" >/dev/null
  fi
done

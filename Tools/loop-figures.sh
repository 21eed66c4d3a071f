#!/usr/bin/env bash
# Issue 16's loop-closure figures on the 360 s back-and-forth session (Datasets/scenes/backforth.json:
# 18 sweeps of 200° around a table, 2 surfaces), generated into out/ (not committed, ~260 MB):
#
#   Tools/loop-figures.sh            320x240 at 10 fps (3601 frames), the same with a phone's sensors
#                                    (`--profile phone`: 256x192 depth with flying pixels, rolling
#                                    shutter, dropped frames, jitter, JPEG 80), plus 60 s at 640x480
#
# Prints, for each 320x240 session with and without loop closure (`--no-loop-closure`): the anchors at
# the end and the loops closed (`arsim replay`), the ATE and the 1-frame RPE of the final trajectory
# (`arsim eval`); then the cost at 640x480 (`arsim bench`): the relocalisation + loop-closure stage (a
# mean over all frames, wall clock) and the whole-process CPU per frame with and without loop closure,
# whose difference is the honest cost (it holds whatever runs outside the stage). Run twice, the
# replays' events must be identical (determinism); the script checks it. ARSIM names the arsim
# binary; default: a release build of this checkout.
source "$(dirname "$0")/lib.sh"
arsim_binary
small=out/datasets/backforth-320
phone=out/datasets/backforth-phone-320
full=out/datasets/backforth-640-60s
[ -f "$small/session.json" ] || "$ARSIM" generate Datasets/scenes/backforth.json "$small" --scale 0.5 >&2
[ -f "$phone/session.json" ] ||
  "$ARSIM" generate Datasets/scenes/backforth.json "$phone" --scale 0.5 --profile phone >&2
[ -f "$full/session.json" ] || "$ARSIM" generate Datasets/scenes/backforth.json "$full" --duration 60 >&2
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for session in "$small" "$phone"; do
  for variant in loop no-loop; do
    flag=()
    [ "$variant" = no-loop ] && flag=(--no-loop-closure)
    echo "== $session, $variant"
    "$ARSIM" replay "$session" "${flag[@]}" --events "$out/$variant.jsonl" | grep -E '^(states|loops closed|planes):'
    "$ARSIM" eval "$session" "${flag[@]}" 2>/dev/null | grep -E '^(ATE|RPE|planes:)'
  done
  "$ARSIM" replay "$session" --events "$out/again.jsonl" > /dev/null
  cmp -s "$out/loop.jsonl" "$out/again.jsonl" && echo "events identical across runs" || echo "EVENTS DIFFER"
done
echo "== cost at 640x480 (load: $(cut -d' ' -f1-3 /proc/loadavg))"
cpu() { "$ARSIM" bench "$full" "$@" --json "$out/bench.json" 2>/dev/null | grep -v '^recording' >&2
  grep -o '"cpuMilliseconds" *: *[0-9.]*' "$out/bench.json" | grep -o '[0-9.]*$'; }
with="$(cpu)"
without="$(cpu --no-loop-closure)"
awk -v a="$with" -v b="$without" \
  'BEGIN { printf "whole-process CPU: %.2f ms/frame with loop closure, %.2f without: %.2f ms/frame\n", a, b, a - b }'

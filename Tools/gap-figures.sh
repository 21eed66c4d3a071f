#!/usr/bin/env bash
# Issue 16's gap figure (pause and resume with the camera moved, as a gap in the recording): the
# recording with COUNT frames from frame FIRST left out of frames.txt (the camera moved on while
# nothing was recorded; the IMU file is kept whole, so the gyroscope spans the gap), replayed:
#
#   Tools/gap-figures.sh RECORDING [MODE [FIRST [COUNT]]]   default: mono, 90, 20 (1.3 s at 15 fps)
#
# Prints the replay's states line, how many frames after the gap the first `normal` one came
# (issue 16: within 10; 0 when the first frame after it was already `normal`, relocalised at once;
# "never" when tracking did not return) and `arsim eval`'s ATE line (over the
# tracked frames, before and after the gap). A gap of more than 1 s (TrackerOptions'
# interruptionThreshold) is an interruption: the frames after it are limited:relocalizing.
# ARSIM names the arsim binary; default: a release build of this checkout.
source "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || usage_error "Tools/gap-figures.sh RECORDING [MODE [FIRST [COUNT]]]"
recording="$1"
mode="${2:-mono}"
first="${3:-90}"
count="${4:-20}"
arsim_binary
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
gapped="$out/recording"
mkdir "$gapped"
for entry in "$recording"/*; do
  [ "$(basename "$entry")" = frames.txt ] || ln -s "$(realpath "$entry")" "$gapped/$(basename "$entry")"
done
awk -v first="$first" -v last="$((first + count))" \
  '/^#/ { print; next } { if (n < first || n >= last) print; n++ }' "$recording/frames.txt" >"$gapped/frames.txt"
"$ARSIM" replay "$gapped" --mode "$mode" --events "$out/events.jsonl" | grep -E '^states:'
# In the gapped recording the first frame after the gap has index FIRST.
python3 - "$out/events.jsonl" "$first" <<'PY'
import json
import sys

first = int(sys.argv[2])
# The events are changes of state: a frame without one keeps the state of the last one before it, so
# a gap relocalised on its first frame without leaving `normal` has no event after it (0 frames).
states = [e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "trackingState"]
before = [e["state"] for e in states if e["frame"] < first]
held = [e["state"] for e in states if e["frame"] <= first]
normal = [first] if held and held[-1] == "normal" else []
normal += [e["frame"] for e in states if e["frame"] > first and e["state"] == "normal"]
print(f"before the gap: {before[-1] if before else 'none'}; after it: "
      + (f"normal {normal[0] - first} frames after the gap" if normal else "never normal"))
PY
"$ARSIM" eval "$gapped" --mode "$mode" | grep -E '^ATE'

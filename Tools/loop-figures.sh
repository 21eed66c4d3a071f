#!/usr/bin/env bash
# Issue 16's loop-closure figures on the 360 s back-and-forth session (Datasets/scenes/backforth.json:
# 18 sweeps of 200° around a table, 2 surfaces), generated into out/ (not committed, ~260 MB):
#
#   Tools/loop-figures.sh            320x240 at 10 fps (3601 frames), plus 60 s of it at 640x480
#
# Prints, with and without loop closure (`--no-loop-closure`): the anchors at the end and the loops
# closed (`arsim replay`), the ATE (`arsim eval`); then the relocalisation + loop-closure cost per frame
# at 640x480 (`arsim bench`, a mean over all frames). Run twice, the replays' events must be identical
# (determinism); the script checks it. ARSIM names the arsim binary; default: a release build of this
# checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${ARSIM:-}" ]; then
  swift build -c release --product arsim 2>&1 | tail -n 1 >&2
  ARSIM="$(swift build -c release --show-bin-path)/arsim"
fi
small=out/datasets/backforth-320
full=out/datasets/backforth-640-60s
[ -f "$small/session.json" ] || "$ARSIM" generate Datasets/scenes/backforth.json "$small" --scale 0.5 >&2
[ -f "$full/session.json" ] || "$ARSIM" generate Datasets/scenes/backforth.json "$full" --duration 60 >&2
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for variant in loop no-loop; do
  flag=()
  [ "$variant" = no-loop ] && flag=(--no-loop-closure)
  echo "== $variant"
  "$ARSIM" replay "$small" "${flag[@]}" --events "$out/$variant.jsonl" | grep -E '^(states|loops closed|planes):'
  "$ARSIM" eval "$small" "${flag[@]}" 2>/dev/null | grep -E '^(ATE|planes:)'
done
"$ARSIM" replay "$small" --events "$out/again.jsonl" > /dev/null
cmp -s "$out/loop.jsonl" "$out/again.jsonl" && echo "events identical across runs" || echo "EVENTS DIFFER"
echo "== cost at 640x480 (load: $(cut -d' ' -f1-3 /proc/loadavg))"
"$ARSIM" bench "$full" 2>/dev/null

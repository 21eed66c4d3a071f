#!/usr/bin/env bash
# Scores a replay's plane anchors on real captures against a reference fused from the captures'
# own depth and ARKit's poses (Tools/plane_reference.py says how), draws them, writes the table:
#
#   Tools/plane-reference.sh [CAPTURE...]     default: the five real captures in ../shared/datasets
#
# Per capture: `arsim import` into out/planes/import/CAPTURE (kept: delete it to import again), the
# fused reference in out/planes/CAPTURE-reference.npz (kept until the import is newer), a replay with
# default options (events and trajectory into out/planes/replay/), the scores on stdout and the picture
# out/planes/CAPTURE.png. With every default capture present it writes Tools/figures/planes-real.md.
# ARSIM names the arsim binary; default: a release build of this checkout. Progress on stderr.
source "$(dirname "$0")/lib.sh"
defaults=(arkitscenes-40777063 stray-demo2 stray-early scanner3d-corridor record3d-dance)
choose_captures "$@"
arsim_binary
mkdir -p out/planes/import out/planes/replay
present=()
for name in "${captures[@]}"; do
  src="$(real_capture "$name")" || continue
  import_capture "$name" "$src" "out/planes/import/$name"
  echo "plane-reference: replaying $name" >&2
  "$ARSIM" replay "$src" --events "out/planes/replay/$name.events.jsonl" \
    --trajectory "out/planes/replay/$name.traj.txt" > "out/planes/replay/$name.summary.txt" 2> /dev/null
  present+=("$name")
done
table=()
if [ $# -eq 0 ] && [ ${#present[@]} -eq ${#defaults[@]} ]; then
  table=(--table Tools/figures/planes-real.md)
fi
ARSIM_EXTRA_REQUIREMENTS=Tools/requirements-planes.txt exec Tools/python.sh Tools/plane_reference.py \
  --command "$invocation" --built "$(date -u -r "$ARSIM" '+%Y-%m-%d %H:%M UTC')" "${table[@]}" "${present[@]}"

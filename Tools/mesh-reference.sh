#!/usr/bin/env bash
# Compares `arsim replay --mesh` on real captures with Open3D's fusion of the same depth and ARKit's
# poses (Tools/mesh-reference.py says how), and times the replay with and without --mesh:
#
#   Tools/mesh-reference.sh [CAPTURE...]     default: arkitscenes-40777063 stray-demo2
#
# Per capture: `arsim import` into out/planes/import/CAPTURE (shared with Tools/plane-reference.sh;
# kept: delete it to import again), a replay without and one with --mesh, both writing events and
# a trajectory (mesh, events, trajectory and both wall-clock times into out/mesh/replay/), the scores
# on stdout. With the default captures present it
# writes Tools/figures/mesh-reference.md. ARSIM names the arsim binary; default: a release build of
# this checkout. Progress on stderr.
source "$(dirname "$0")/lib.sh"
defaults=(arkitscenes-40777063 stray-demo2)
choose_captures "$@"
arsim_binary
mkdir -p out/planes/import out/mesh/replay
present=()
for name in "${captures[@]}"; do
  src="$(real_capture "$name")" || continue
  import_capture "$name" "$src" "out/planes/import/$name"
  base="out/mesh/replay/$name"
  echo "mesh-reference: replaying $name without and with --mesh" >&2
  start=$(date +%s.%N)
  "$ARSIM" replay "$src" --events "$base.plain.events.jsonl" --trajectory "$base.plain.traj.txt" \
    > "$base.plain.txt" 2> /dev/null
  plain=$(echo "$(date +%s.%N) - $start" | bc)
  start=$(date +%s.%N)
  "$ARSIM" replay "$src" --mesh "$base.ply" --events "$base.events.jsonl" --trajectory "$base.traj.txt" \
    > "$base.summary.txt" 2> /dev/null
  mesh=$(echo "$(date +%s.%N) - $start" | bc)
  printf 'plain %s\nmesh %s\n' "$plain" "$mesh" > "$base.times"
  present+=("$name")
done
table=()
if [ $# -eq 0 ] && [ ${#present[@]} -eq ${#defaults[@]} ]; then
  table=(--table Tools/figures/mesh-reference.md)
fi
ARSIM_EXTRA_REQUIREMENTS=Tools/requirements-planes.txt exec Tools/python.sh Tools/mesh-reference.py \
  --command "$invocation" "${table[@]}" "${present[@]}"

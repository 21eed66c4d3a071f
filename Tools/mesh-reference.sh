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
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared/datasets
defaults=(arkitscenes-40777063 stray-demo2)
captures=("$@")
[ ${#captures[@]} -eq 0 ] && captures=("${defaults[@]}")
command="Tools/mesh-reference.sh"
[ -n "${ARSIM:-}" ] && command="ARSIM=$ARSIM $command"
if [ -z "${ARSIM:-}" ]; then
  swift build -c release --product arsim 2>&1 | tail -n 1 >&2
  ARSIM="$(swift build -c release --show-bin-path)/arsim"
fi
mkdir -p out/planes/import out/mesh/replay
present=()
for name in "${captures[@]}"; do
  src="$shared/$name"
  [ "$name" = record3d-dance ] && src="$shared/$name/dance.r3d"
  if [ ! -e "$src" ]; then
    echo "mesh-reference: $src is absent" >&2
    continue
  fi
  if [ ! -e "out/planes/import/$name/session.json" ]; then
    echo "mesh-reference: importing $name" >&2
    "$ARSIM" import "$src" "out/planes/import/$name" > /dev/null
  fi
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
  --command "$command" "${table[@]}" "${present[@]}"

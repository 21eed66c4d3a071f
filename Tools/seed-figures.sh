#!/usr/bin/env bash
# Issue 13's must-holds over many seeds of one phone-profile scene, not only the committed session
# (one seed, which can be a lucky one):
#
#   Tools/seed-figures.sh [SCENE [FIRST [COUNT]]]   default: room-phone, 1, 20
#
# SCENE is room-phone (0.5 scale, 10 fps, 10 s, as Datasets/room-phone) or door (0.5 scale, 10 fps,
# as Datasets/door). Each seed is generated once into out/seeds/SCENE-sN (about 10 s each; kept for
# the next run), all are scored by one `arsim eval --json`, and Tools/seed_figures.py prints each
# seed's figures, the must-holds it misses, and how many seeds miss each one.
# ARSIM names the arsim binary; default: a release build of this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
scene="${1:-room-phone}"
first="${2:-1}"
count="${3:-20}"
case "$scene" in
  room-phone) options=(--scale 0.5 --fps 10 --duration 10) ;;
  door) options=(--scale 0.5 --fps 10) ;;
  *) echo "seed-figures: unknown scene '$scene' (room-phone or door)" >&2; exit 2 ;;
esac
if [ -z "${ARSIM:-}" ]; then
  swift build -c release --product arsim 2>&1 | tail -n 1 >&2
  ARSIM="$(swift build -c release --show-bin-path)/arsim"
fi
mkdir -p out/seeds
recordings=()
for seed in $(seq "$first" $((first + count - 1))); do
  recording="out/seeds/$scene-s$seed"
  if [ ! -f "$recording/frames.txt" ]; then
    echo "seed-figures: generating $recording" >&2
    "$ARSIM" generate "Datasets/scenes/$scene.json" "$recording" --overwrite "${options[@]}" \
      --seed "$seed" >/dev/null
  fi
  recordings+=("$recording")
done
report="out/seeds/$scene-$first-$((first + count - 1)).json"
"$ARSIM" eval "${recordings[@]}" --json "$report" >/dev/null
python3 Tools/seed_figures.py "$report"

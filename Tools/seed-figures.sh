#!/usr/bin/env bash
# Issue 13's must-holds over many seeds of one phone-profile scene, not only the committed session
# (one seed, which can be a lucky one):
#
#   Tools/seed-figures.sh [SCENE [FIRST [COUNT [FPS]]]]   default: room-phone, 1, 20, 10
#
# SCENE is room-phone (0.5 scale, 10 fps, 10 s, as Datasets/room-phone) or door (0.5 scale, 10 fps,
# as Datasets/door). FPS other than 10 (the scenes' own rate is 30) generates at that rate instead.
# Each seed is generated once into out/seeds/SCENE-sN, or SCENE-FPSfps-sN (about 10 s each at 10 fps;
# kept for the next run), all are scored by one `arsim eval --json`, and Tools/seed_figures.py prints
# each seed's figures (the 1-frame RPE too), the must-holds it misses, how many seeds miss each one,
# and the means of ATE, RPE and gravity error over the seeds.
# ARSIM names the arsim binary; default: a release build of this checkout.
source "$(dirname "$0")/lib.sh"
scene="${1:-room-phone}"
first="${2:-1}"
count="${3:-20}"
fps="${4:-10}"
case "$scene" in
  room-phone) options=(--scale 0.5 --fps "$fps" --duration 10) ;;
  door) options=(--scale 0.5 --fps "$fps") ;;
  *) echo "seed-figures: unknown scene '$scene' (room-phone or door)" >&2; exit 2 ;;
esac
arsim_binary
mkdir -p out/seeds
name="$scene"
[ "$fps" = 10 ] || name="$scene-${fps}fps"
recordings=()
for seed in $(seq "$first" $((first + count - 1))); do
  recording="out/seeds/$name-s$seed"
  if [ ! -f "$recording/frames.txt" ]; then
    echo "seed-figures: generating $recording" >&2
    "$ARSIM" generate "Datasets/scenes/$scene.json" "$recording" --overwrite "${options[@]}" \
      --seed "$seed" >/dev/null
  fi
  recordings+=("$recording")
done
report="out/seeds/$name-$first-$((first + count - 1)).json"
"$ARSIM" eval "${recordings[@]}" --json "$report" >/dev/null
python3 Tools/seed_figures.py "$report"

#!/usr/bin/env bash
# Renders the synthetic datasets from the scene files in Datasets/scenes/ with a release build of
# `arsim generate`. Deterministic: the same scenes give the same files.
#
#   Tools/generate-datasets.sh           full versions (640x480, 30 fps, the scenes' sensor noise)
#                                        into out/datasets/NAME (gitignored)
#   Tools/generate-datasets.sh --small   the reduced versions committed in Datasets/NAME: 320x240,
#                                        15 fps (room and stress: 10 fps), JPEG quality 85, noise-free depth
#                                        (holes and range kept) so that all together stay under 20 MB;
#                                        the phone-profile scenes (door, room-phone: 256x192 depth) keep
#                                        their depth noise and JPEG quality, at 10 fps (room-phone: 10 s)
#   Tools/generate-datasets.sh [--small] NAME...   only the named scenes
source "$(dirname "$0")/lib.sh"

small=0
if [ "${1:-}" = "--small" ]; then
  small=1
  shift
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then names=(tabletop room stress tabletop-mono door room-phone); fi

# ARSIM (optional) names the arsim binary; default: a release build of this checkout (SCRATCH_PATH,
# optional, is passed to swift build as --scratch-path).
arsim_binary

for name in "${names[@]}"; do
  scene="Datasets/scenes/$name.json"
  if [ "$small" -eq 1 ] && [ "$name" = door ]; then
    "$ARSIM" generate "$scene" "Datasets/$name" --overwrite --scale 0.5 --fps 10
  elif [ "$small" -eq 1 ] && [ "$name" = room-phone ]; then
    "$ARSIM" generate "$scene" "Datasets/$name" --overwrite --scale 0.5 --fps 10 --duration 10
  elif [ "$small" -eq 1 ]; then
    # 10 fps for the two scenes with most detail in depth keeps all of them within the budget.
    fps=15
    if [ "$name" = room ] || [ "$name" = stress ]; then fps=10; fi
    "$ARSIM" generate "$scene" "Datasets/$name" --overwrite \
      --scale 0.5 --fps "$fps" --jpeg-quality 85 --depth-noise 0
  else
    mkdir -p out/datasets
    "$ARSIM" generate "$scene" "out/datasets/$name" --overwrite
  fi
done
if [ "$small" -eq 1 ]; then
  du -sh "${names[@]/#/Datasets/}" >&2
else
  du -sh "${names[@]/#/out/datasets/}" >&2
fi

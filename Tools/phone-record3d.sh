#!/usr/bin/env bash
# Renders a phone-size synthetic Record3D export (the EXR+JPG folder) for timing replays: the
# room-phone scene (Datasets/scenes/room-phone.json) held in portrait, 1440x1920 colour JPEG at the
# phone's quality, 192x256 float EXR depth with the phone profile's noise, holes and confidence, 60 fps.
# The scene is rendered at 480x640 scaled by 3, with one sample per pixel (the figures measure reading
# and tracking, not anti-aliasing). Nothing is committed: the export goes to OUT (gitignored).
#
#   Tools/phone-record3d.sh [OUT] [SECONDS]     (default out/phone-record3d, 10 s: 600 frames)
#
# ARSIM (optional) names the arsim binary; default: a release build of this checkout.
source "$(dirname "$0")/lib.sh"
out=${1:-out/phone-record3d}
seconds=${2:-10}
arsim_binary
mkdir -p out
scene=out/phone-record3d-scene.json
# Portrait: the landscape scene's camera turned on its side (same focal length, swapped size and
# centre), depth 192x256 under it (7.5 colour pixels per depth pixel, as on an iPhone), a rolling-shutter
# readout that fits a 60 fps frame (15 ms).
jq '.name = "phone-record3d"
    | .camera.width = 480 | .camera.height = 640 | .camera.cx = 239.5 | .camera.cy = 319.5
    | .sensors.phone.depthWidth = 192 | .sensors.phone.depthHeight = 256
    | .sensors.phone.readoutTime = 0.015 | .render.supersamples = 1' Datasets/scenes/room-phone.json >"$scene"
"$ARSIM" generate "$scene" "$out" --format record3d --overwrite --scale 3 --fps 60 --duration "$seconds" >&2
echo "$out"

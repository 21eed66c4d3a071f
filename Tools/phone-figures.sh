#!/usr/bin/env bash
# The phone-size figures: replay speed and memory on the synthetic Record3D export that
# Tools/phone-record3d.sh renders (1440x1920 JPEG colour, 192x256 EXR depth, 60 fps).
#
#   Tools/phone-figures.sh [EXPORT] [SHORT LONG]     (default out/phone-record3d, 500 5000)
#
# Prints (1) Tools/replay-speed.sh's line for the export: whole-process ms/frame (median of 3 runs),
# against the 60 fps frame period, and the reading thread's ms/frame (decoding both images, and the
# KLT pyramid); (2) `arsim bench`'s per-stage medians and CPU time per frame (user + system time of
# every thread: what a loaded machine does not inflate); (3) the peak resident memory of replays
# of SHORT and LONG frames: a Record3D folder of links to the export's frames played forwards and
# backwards in turn (continuous motion, any length; metadata's poses and timestamps to match), under
# out/phone-memory/ (gitignored). Flat memory: the two peaks agree within a few MB.
#
# ARSIM (optional) names the arsim binary; default: a release build of this checkout.
source "$(dirname "$0")/lib.sh"
export_dir=${1:-out/phone-record3d}
lengths=("${2:-500}" "${3:-5000}")
arsim_binary
[ -f "$export_dir/metadata.json" ] || { echo "phone-figures: render it first: Tools/phone-record3d.sh $export_dir" >&2; exit 2; }
Tools/replay-speed.sh "$export_dir"
"$ARSIM" bench "$export_dir" 2>/dev/null
absolute=$(cd "$export_dir" && pwd)
for n in "${lengths[@]}"; do
  folder=out/phone-memory/pingpong-$n
  rm -rf "$folder"
  mkdir -p "$folder/rgb" "$folder/depth"
  # Frame k of the long export is frame p(k) of the rendered one, p going 0..m-1..0..
  m=$(ls "$absolute/rgb" | wc -l)
  awk -v n="$n" -v m="$m" 'BEGIN { c = 2 * (m - 1); for (k = 0; k < n; k++) { r = k % c; print k, (r < m ? r : c - r) } }' \
    >"$folder/order.txt"
  while read -r k p; do
    ln -s "$absolute/rgb/$p.jpg" "$folder/rgb/$k.jpg"
    ln -s "$absolute/depth/$p.exr" "$folder/depth/$k.exr"
  done <"$folder/order.txt"
  jq --argjson n "$n" '.fps as $fps | .poses as $poses | ($poses | length) as $m | (2 * ($m - 1)) as $c
    | .poses = [range(0; $n) | . % $c | if . < $m then $poses[.] else $poses[$c - .] end]
    | .frameTimestamps = [range(0; $n) | . / $fps]' "$absolute/metadata.json" >"$folder/metadata.json"
  /usr/bin/time -f '%M' -o "$folder/rss.txt" "$ARSIM" replay "$folder" >"$folder/stdout.txt" 2>"$folder/stderr.txt" || {
    tail -n 3 "$folder/stderr.txt" >&2
    exit 1
  }
  timing=$(grep '^timing:' "$folder/stderr.txt" | tail -n 1)
  printf 'memory: %5d frames: peak RSS %.1f MB; %s\n' "$n" "$(awk -v k="$(cat "$folder/rss.txt")" 'BEGIN { print k / 1024 }')" "$timing"
done

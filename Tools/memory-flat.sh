#!/usr/bin/env bash
# Memory and per-stage time against replay length: replays a long TUM-layout session made from a
# recording's own frames played forwards and backwards in turn (continuous motion, any length), for
# 500 and for 5,000 frames (or the lengths given), and prints peak resident memory (/usr/bin/time -v)
# and the per-stage medians `arsim replay` reports. Flat memory: the two peaks agree within a few MB.
#
#   Tools/memory-flat.sh [RECORDING] [SHORT LONG]     (default Datasets/tabletop 500 5000)
#
# Uses the release build (swift build -c release --product arsim); writes only under out/memory/.
source "$(dirname "$0")/lib.sh"
recording=${1:-Datasets/tabletop}
lengths=("${2:-500}" "${3:-5000}")
binary=.build/release/arsim
[ -x "$binary" ] || { echo "memory: build it first: swift build -c release --product arsim" >&2; exit 2; }
[ -f "$recording/frames.txt" ] || { echo "memory: $recording/frames.txt: no ARSim frame index" >&2; exit 2; }
fx=$(sed -n 's/.*"fx" *: *\([0-9.]*\).*/\1/p' "$recording/session.json")
fy=$(sed -n 's/.*"fy" *: *\([0-9.]*\).*/\1/p' "$recording/session.json")
cx=$(sed -n 's/.*"cx" *: *\([0-9.]*\).*/\1/p' "$recording/session.json")
cy=$(sed -n 's/.*"cy" *: *\([0-9.]*\).*/\1/p' "$recording/session.json")
absolute=$(cd "$recording" && pwd)
for n in "${lengths[@]}"; do
  folder=out/memory/pingpong-$n
  rm -rf "$folder"
  mkdir -p "$folder"
  echo "$fx $fy $cx $cy" >"$folder/intrinsics.txt"
  # Frame k of the long session is frame p(k) of the recording, p going 0..m-1..0..; 15 Hz.
  grep -v '^#' "$recording/frames.txt" | awk -v n="$n" -v dir="$absolute" -v out="$folder" '
    { image[NR - 1] = $2; depth[NR - 1] = $3; m = NR }
    END {
      for (k = 0; k < n; k++) {
        cycle = 2 * (m - 1); r = k % cycle; p = r < m ? r : cycle - r
        t = sprintf("%.6f", k / 15.0)
        print t, dir "/" image[p] > (out "/rgb.txt")
        if (depth[p] != "-") print t, dir "/" depth[p] > (out "/depth.txt")
      }
    }'
  # Depth is read in TUM's units (1/5000 m), not the recording's: the world comes out scaled, which
  # changes neither memory nor timing (this measures those, not accuracy).
  /usr/bin/time -v "$binary" replay "$folder" --format tum >"$folder/stdout.txt" 2>"$folder/stderr.txt" || {
    tail -n 3 "$folder/stderr.txt" >&2
    exit 1
  }
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$folder/stderr.txt")
  timing=$(grep '^timing:' "$folder/stderr.txt" | tail -n 1)
  printf 'memory: %5d frames: peak RSS %.1f MB; %s\n' "$n" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$timing"
done

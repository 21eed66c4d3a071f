#!/usr/bin/env bash
# Import speed and memory of `arsim import` on 256x192 phone depth (release build): frames per
# second of wall time and per CPU second (user + system; what a shared, loaded machine cannot
# hide), medians of 3 runs, and peak RSS for the first 100 frames and for all frames of a Stray
# Scanner export (default ../shared/datasets/stray-demo2), so that flat memory shows as equal RSS.
# The load average is printed with the figures.
# Usage: Tools/bench-import.sh [STRAY_FOLDER]
source "$(dirname "$0")/lib.sh"
src="${1:-../shared/datasets/stray-demo2}"
[ -d "$src" ] || { echo "bench-import: $src is absent" >&2; exit 1; }
swift build -c release --product arsim >&2
bin=.build/release/arsim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A 100-frame copy: the first 100 odometry rows, the same depth, confidence and IMU files.
mkdir "$work/short"
head -n 101 "$src/odometry.csv" > "$work/short/odometry.csv"
for f in camera_matrix.csv imu.csv depth confidence; do ln -s "$(cd "$src" && pwd)/$f" "$work/short/$f"; done
for name in short full; do
  folder="$src"; [ "$name" = short ] && folder="$work/short"
  rates=()
  cpu=()
  for run in 1 2 3; do
    rm -rf "$work/out"
    /usr/bin/time -f "%M %U %S" -o "$work/time" "$bin" import "$folder" "$work/out" 2>/dev/null > "$work/log"
    frames=$(sed -n 's/^frames: \([0-9]*\) .*/\1/p' "$work/log")
    rates+=("$(sed -n 's/.*(\([0-9]*\) frames\/s).*/\1/p' "$work/log")")
    cpu+=("$(awk -v n="$frames" '{ printf "%.0f", n / ($2 + $3) }' "$work/time")")
    rss=$(awk '{ print $1 }' "$work/time")
  done
  median=$(printf '%s\n' "${rates[@]}" | sort -n | sed -n 2p)
  cpu_median=$(printf '%s\n' "${cpu[@]}" | sort -n | sed -n 2p)
  echo "$name: $frames frames, median $median frames/s wall (runs ${rates[*]}), $cpu_median frames per CPU second (runs ${cpu[*]}), peak RSS $rss KB"
done
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# Whole-process replay speed against each recording's own frame period, with where the time goes:
#
#   Tools/replay-speed.sh [--runs N] RECORDING[=ARGS] ...
#
# For each recording (ARGS: extra `arsim replay` options, comma-separated, e.g. stray=--mode,depth),
# runs `arsim replay` N times (default 3) and prints the median whole-process milliseconds per frame
# (wall time of the process, start-up included, over the frames replayed), the recording's frame
# period (its duration over its frames, from the replay's summary), their ratio (how many times
# faster than real time), the median reading/decoding milliseconds per frame the replay reports (on
# the reading thread), and the peak resident memory of the last run. The machine's load is printed
# too: other processes' CPU time inflates wall times.
#
# ARSIM (optional) names the arsim binary; default: a release build of this checkout.
source "$(dirname "$0")/lib.sh"
runs=3
if [ "${1:-}" = "--runs" ]; then
  runs=$2
  shift 2
fi
[ $# -gt 0 ] || usage_error "Tools/replay-speed.sh [--runs N] RECORDING[=ARGS] ..."
arsim_binary
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "replay-speed: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for spec in "$@"; do
  recording=${spec%%=*}
  extra=()
  if [ "$spec" != "$recording" ]; then IFS=',' read -r -a extra <<<"${spec#*=}"; fi
  walls=()
  reads=()
  for ((run = 0; run < runs; run++)); do
    /usr/bin/time -f '%e %M' -o "$scratch/time" "$ARSIM" replay "$recording" "${extra[@]}" \
      >"$scratch/stdout" 2>"$scratch/stderr" || { tail -n 3 "$scratch/stderr" >&2; exit 1; }
    walls+=("$(cut -d' ' -f1 "$scratch/time")")
    reads+=("$(sed -n 's/^timing: reading \([0-9.]*\) ms.*/\1/p' "$scratch/stderr" | tail -n 1)")
  done
  rss=$(cut -d' ' -f2 "$scratch/time")
  # The summary's "frames: N over D s" line: frames replayed and the recorded span.
  frames=$(sed -n 's/^frames: \([0-9]*\) over .*/\1/p' "$scratch/stdout")
  span=$(sed -n 's/^frames: [0-9]* over \([0-9.]*\) s/\1/p' "$scratch/stdout")
  median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  wall=$(median "${walls[@]}")
  read_ms=$(median "${reads[@]}")
  awk -v name="$recording${extra[*]:+ ${extra[*]}}" -v wall="$wall" -v frames="$frames" -v span="$span" -v reading="$read_ms" \
    -v rss="$rss" -v runs="$runs" 'BEGIN {
      per = wall * 1000 / frames; period = span * 1000 / (frames - 1)
      printf "%s: %d frames, %.2f ms/frame whole process (median of %d), period %.2f ms: %.1fx real time; reading %.2f ms/frame (median); peak RSS %.0f MB\n",
        name, frames, per, runs, period, period / per, reading, rss / 1024 }'
done

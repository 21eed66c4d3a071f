#!/usr/bin/env bash
# Replays every real phone capture in ../shared/datasets with default options (no --format, no
# --mode: what a new user gets) and writes one Markdown table of what it measured:
#
#   Tools/real-figures.sh [OUT.md]        default: Tools/figures/real-captures.md
#
# Per capture: the mode chosen, frames, the share with a pose, ATE against ARKit's poses (SE(3), in
# metres and as a share of ARKit's path), RPE between consecutive frames, the world's tilt against the reference's
# gravity per frame (median, max), the median tracking milliseconds per frame, and the whole
# replay's wall time per frame against the recording's own frame period. `arsim eval` gives the
# accuracy (plane detection on, as by default) and `arsim bench` the timings (a second replay);
# their JSON goes to out/real/. Captures that are absent are listed as such. Progress on stderr.
# ARSIM names the arsim binary; default: a release build of this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-Tools/figures/real-captures.md}"
shared=../shared/datasets
captures=(record3d-dance/dance.r3d stray-early stray-demo2 scanner3d-corridor arkitscenes-40777063)
if [ -z "${ARSIM:-}" ]; then
  swift build -c release --product arsim 2>&1 | tail -n 1 >&2
  ARSIM="$(swift build -c release --show-bin-path)/arsim"
fi
mkdir -p out/real "$(dirname "$out")"
args=()
for capture in "${captures[@]}"; do
  name="${capture%%/*}"
  if [ ! -e "$shared/$capture" ]; then
    echo "real-figures: $shared/$capture is absent" >&2
    args+=("$name" "-" "-")
    continue
  fi
  echo "real-figures: $capture: eval" >&2
  "$ARSIM" eval "$shared/$capture" --json "out/real/$name-eval.json" >/dev/null
  echo "real-figures: $capture: bench" >&2
  "$ARSIM" bench "$shared/$capture" --json "out/real/$name-bench.json" >/dev/null
  args+=("$name" "out/real/$name-eval.json" "out/real/$name-bench.json")
done
python3 Tools/real_figures.py "$(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d)" "${args[@]}" >"$out"
echo "real-figures: wrote $out" >&2

#!/usr/bin/env bash
# Fuzzes one reader or decoder with libFuzzer and AddressSanitizer:
#
#   Tools/fuzz.sh TARGET SECONDS [libFuzzer options...]
#   Tools/fuzz.sh all SECONDS          each target in turn (a CI smoke with a few seconds each)
#
# TARGET is one of: session frames imu groundtruth tum planes taps scene image json usdz usdc usda
# lzfse stray record3d r3d exr arkitscenes scanner3d worldmap (see Sources/ARSimFuzz/FuzzTargets.swift). The harness is
# built into its own scratch path (.build/fuzz, release with -sanitize=fuzzer,address), so the
# normal build is untouched. Seeds come from Datasets/ and Tests/Fixtures/, or are the harness's own
# fixture files (the phone layouts); the corpus grows in .build/fuzz/corpus/TARGET, crashes land in
# .build/fuzz/findings/TARGET. The last line printed is `fuzz: TARGET: N inputs in S s (E exec/s, ...)`;
# the exit status is libFuzzer's (0: nothing found). Reproduce a finding without the fuzzer with
# `swift run arsim-fuzz TARGET FILE`.
source "$(dirname "$0")/lib.sh"
targets=(session frames imu groundtruth tum planes taps scene image json usdz usdc usda lzfse stray record3d r3d exr arkitscenes scanner3d worldmap)
[ $# -ge 2 ] || usage_error "Tools/fuzz.sh TARGET|all SECONDS [libFuzzer options...]  (targets: ${targets[*]})"
target=$1
seconds=$2
shift 2
if [ "$target" = all ]; then
  for t in "${targets[@]}"; do "$0" "$t" "$seconds" "$@"; done
  exit 0
fi
if [[ ! " ${targets[*]} " == *" $target "* ]]; then
  echo "fuzz: unknown target '$target' (targets: ${targets[*]})" >&2
  exit 2
fi

scratch=.build/fuzz
echo "fuzz: building the harness (release, -sanitize=fuzzer,address) in $scratch" >&2
swift build -c release --product arsim-fuzz --scratch-path "$scratch" \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -D -Xswiftc FUZZING \
  -Xcc -fsanitize=fuzzer-no-link,address -Xcxx -fsanitize=fuzzer-no-link,address 2>&1 | tail -n 3 >&2
binary="$scratch/release/arsim-fuzz"

# Seed corpus from the datasets (copied once; the fuzzer adds to it).
corpus="$scratch/corpus/$target"
findings="$scratch/findings/$target"
mkdir -p "$corpus" "$findings"
seed() { for f in "$@"; do [ -f "$f" ] && cp -n "$f" "$corpus/$(echo "$f" | tr / _)"; done; }
# The first $2 lines of file $1, as a seed (big streams are cut to the inputs' length limit).
seed_head() { head -n "$2" "$1" >"$corpus/$(echo "$1" | tr / _).head"; }
# A TUM-target seed: a selector byte, then the content.
seed_tum() { { printf "\\x$(printf %02x "$1")"; head -n 40 "$2"; } >"$corpus/tum-$1-$(basename "$2")"; }
case "$target" in
  session) seed Datasets/*/session.json ;;
  frames) for d in Datasets/*/frames.txt; do seed_head "$d" 40; done ;;
  imu) for d in Datasets/*/imu.txt; do seed_head "$d" 60; done ;;
  groundtruth) for d in Datasets/*/groundtruth.txt; do seed_head "$d" 40; done ;;
  tum)
    seed_tum 0 Datasets/tabletop/frames.txt
    seed_tum 1 Datasets/tabletop/frames.txt
    seed_tum 2 Datasets/tabletop/imu.txt
    printf '\x0330 30 15.5 11.5\n' >"$corpus/tum-3-intrinsics"
    ;;
  planes) seed Datasets/*/planes.json ;;
  taps) seed Datasets/*/taps.txt ;;
  scene) seed Datasets/scenes/*.json ;;
  image)
    seed Datasets/tabletop/rgb/000000.jpg Datasets/tabletop/depth/000000.png Datasets/stress/rgb/000000.jpg
    seed Tests/Fixtures/exr/*.exr  # OpenEXR depth as OpenCV and OpenEXR write it, and a past finding
    ;;
  json) seed Datasets/*/session.json Datasets/scenes/*.json ;;
  usdz | usdc | usda) seed Tests/ARSimAssetsTests/Fixtures/*."$target" ;;
  lzfse) seed Tests/Fixtures/lzfse/*.lzfse ;;
  r3d) seed Tests/Fixtures/record3d/*.r3d ;;
  exr) seed Tests/Fixtures/exr/*.exr ;;  # and the harness's fixture depth/0.exr (below)
  # stray, record3d, exr, arkitscenes, scanner3d, worldmap: the harness writes its fixture's files as seeds (ARSIM_FUZZ_SEEDS).
esac

log="$scratch/fuzz-$target.log"
echo "fuzz: $target for $seconds s (log: $log)" >&2
status=0
started=$(date +%s)
ARSIM_FUZZ_TARGET=$target ARSIM_FUZZ_SEEDS=$corpus ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 "$binary" "$corpus" \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
  -artifact_prefix="$findings/" -print_final_stats=1 "$@" >"$log" 2>&1 || status=$?
took=$(($(date +%s) - started))
rm -rf /dev/shm/arsim-fuzz-"$target"-* "${TMPDIR:-/tmp}"/arsim-fuzz-"$target"-* 2>/dev/null || true
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
if [ "$status" -ne 0 ]; then
  grep -E "^==[0-9]+==ERROR|SUMMARY|Fatal error|deadly signal|timeout|out-of-memory" "$log" | head -n 5 >&2 || true
  echo "fuzz: $target: FINDING after ${runs:-?} inputs (exit $status; artifacts in $findings, log $log)"
  exit "$status"
fi
echo "fuzz: $target: ${runs:-?} inputs in $took s (${rate:-?} exec/s, peak RSS ${rss:-?} MB), no finding"

#!/usr/bin/env bash
# Model loading speed: makes a benchmark usdz of about 1 MB with Pixar's USD (Tools/make_usd_fixtures.py,
# not committed; kept in out/), builds assets-bench in release and prints the per-load median.
# Usage: Tools/bench-assets.sh [--runs N] [MORE FILES...]
source "$(dirname "$0")/lib.sh"
mkdir -p out
big="out/bench-1mb.usdz"
if [ ! -f "$big" ]; then
  ARSIM_EXTRA_REQUIREMENTS=Tools/requirements-assets.txt Tools/python.sh Tools/make_usd_fixtures.py --big "$big"
fi
swift build -c release --product assets-bench >&2
"$(swift build -c release --show-bin-path)/assets-bench" "$big" Tests/ARSimAssetsTests/Fixtures/scene.usdz "$@"

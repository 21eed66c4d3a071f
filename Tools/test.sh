#!/usr/bin/env bash
# The test command of README.md: installs what is needed, builds without warnings,
# checks formatting, and runs the unit and scenario tests (a few minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
Tools/setup.sh

echo "test: swift build (warnings are errors)" >&2
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | tail -n 5

echo "test: swift format lint" >&2
swift format lint --strict --recursive --parallel Package.swift Sources Tests

echo "test: swift test" >&2
swift test --skip-build

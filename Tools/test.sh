#!/usr/bin/env bash
# The test command of README.md: installs what is needed, builds without warnings,
# checks formatting, and runs the unit and scenario tests.
#
# The tests are built optimised (release, with testable imports) into their own scratch path,
# .build/tests, apart from the product's .build/release (the flags differ, so sharing one would
# rebuild everything on each switch). Most of the suite replays recordings through tracking and
# plane detection, which an unoptimised build runs 5-8 times slower: on this project's 2-core
# machine the suite (620 tests) took 37 min as a debug build and takes 87 s like this, both at load 1.
source "$(dirname "$0")/lib.sh"
Tools/setup.sh

scratch=(-c release --scratch-path .build/tests)

echo "test: swift build (release with testing, warnings are errors)" >&2
swift build "${scratch[@]}" --build-tests -Xswiftc -enable-testing -Xswiftc -warnings-as-errors 2>&1 | tail -n 5

echo "test: swift format lint" >&2
swift format lint --strict --recursive --parallel Package.swift Sources Tests

echo "test: swift test" >&2
swift test "${scratch[@]}" --skip-build "$@"

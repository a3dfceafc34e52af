#!/bin/sh
# tests/bench/phpline.sh — what PHP's line key costs (issue 35): per
# event on one probe (Debian's php8.2: fn:libc.so.6:write, the write(2)
# of 200,000 fwrite() calls to /dev/null from a function 12 frames
# deep), bare and under `trace --budget off` keyed by a number (arg0),
# by phpframe and by phpline: ns per event over bare, and the frame
# keys' ratios to the numeric key (goal: under 2x).
# Run as root from anywhere: tests/bench/phpline.sh
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/phpline.py build "$@"

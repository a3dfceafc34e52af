#!/bin/sh
# tests/bench/selfcpu.sh — probetop's own CPU with the console open on a
# running process, probesets picked by detection (no -P, no -e), as a
# user starts it: a plain node 20 and a python3.11 service loop, each
# for 20 s after the console's first screen. Goal (issue 45): at most 2%
# of a core each.
# Run as root from anywhere: tests/bench/selfcpu.sh
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/selfcpu.py build "$@"

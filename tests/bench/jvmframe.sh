#!/bin/sh
# tests/bench/jvmframe.sh — what a plain JVM's Java stacks cost (issue
# 36): a CPU-bound java (no flag) under profile:99=count(ustack), the
# walk recording interpreted frames by Method* and stepping through
# compiled frames by the code cache's frame sizes: the profile
# program's own run time (kernel BPF statistics) as a share of one CPU,
# and probetop's own CPU time (reading the code cache, naming) over the
# same window (goal: under 1% of a CPU).
# Run as root from anywhere: tests/bench/jvmframe.sh
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/jitstack.py build java "$@"

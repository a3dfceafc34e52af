#!/bin/sh
# tests/bench/v8frame.sh — what naming a plain Node's JavaScript frames
# from V8's metadata costs (issue 36): a CPU-bound node (no flag) under
# profile:99=count(ustack), the walk taking each JavaScript frame's
# SharedFunctionInfo: the profile program's own run time (kernel BPF
# statistics) as a share of one CPU, and probetop's own CPU time (the
# naming: user space) over the same window (goal: under 1% of a CPU).
# Run as root from anywhere: tests/bench/v8frame.sh
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/jitstack.py build node "$@"

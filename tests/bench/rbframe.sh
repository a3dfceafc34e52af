#!/bin/sh
# tests/bench/rbframe.sh — what Ruby's frame and stack keys cost (issue 35).
# 1. Per event, on one probe (Debian's ruby3.1: fn:libc.so.6:write, the
#    write(2) of 300,000 IO#syswrite calls to /dev/null from a method 12
#    frames deep; Ruby's method probes do not fire), bare and under
#    `trace --budget off` keyed by a number (arg0), by rbframe, rbline
#    and rbstack: ns per event over bare, and the frame keys' ratios to
#    the numeric key (goal: under 2x).
# 2. Sampling: a CPU-bound ruby3.1 under profile:99=count(rbstack): the
#    profile program's own run time (kernel BPF statistics) as a share
#    of one CPU, and the target's slowdown against bare (goal: under 1%).
# Run as root from anywhere: tests/bench/rbframe.sh
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/rbframe.py build "$@"

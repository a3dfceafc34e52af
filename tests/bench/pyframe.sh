#!/bin/sh
# tests/bench/pyframe.sh — what frame and stack keys cost (issues 23, 24).
# 1. Per event, on one USDT probe (Debian's python3.11,
#    python:function__return, 2,000,000 returns of a function 12 frames
#    deep), bare and under `trace --budget off` keyed by a number (arg2),
#    by pyframe, by pystack, by ustack, by mixstack (both stacks, one
#    event), and as the python probeset's
#    calls (function, file, arg2 or pyfirstline): ns per event over bare, and
#    pystack's and ustack's ratios to the numeric key (goals, issues 23,
#    24 and 34: under 2x); ustack also by frame pointers alone
#    (PROBETOP_UNWIND=fp, the walk before the unwind tables).
# 2. Sampling: a CPU-bound pyenv CPython under profile:99=count(pystack),
#    and Debian's python3.11 under profile:99=count(ustack) (walked by
#    the unwind tables): the profile program's own run time (kernel BPF
#    statistics) as a share of one CPU, and the target's slowdown against
#    bare (goal: under 1%).
# Run as root from anywhere: tests/bench/pyframe.sh
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/pyframe.py build "$@"

#!/bin/sh
# tests/bench/start.sh — how long a session takes from start to end on a
# command it launches, `python3.11 -c pass` (Debian's CPython, with USDT),
# against bpftrace counting one of its USDT probes on the same command,
# in one run, as ratios (hyperfine, medians):
#   bpftrace   usdt:python3.11:python:function__return { @ = count(); }
#   usdt       probetop trace -e python:function__return  (the same count)
#   python     probetop trace -P python  (the probeset: frames and GC)
#   pystack    probetop trace -e 'profile:99=count(pystack)'
# Each ends when the command has exited: the start (load, verify, attach,
# calibrate), the command's run, and the end (detach, the final block).
# Then a running python3.11 service: bpftrace from launch to its BEGIN
# (its probe attached), trace -p to its 'attached' line, the console in
# tmux to its first whole screen. Then a target busy on every CPU (xz
# -T2): its CPU while probetop starts on it (-p, a native stack profile)
# against just before.
# Goals (issue 45): python at most 1.5x bpftrace, pystack at most 2x, the
# console at most 2x; the busy target keeps at least 0.9 of its CPU.
# Run as root from anywhere: tests/bench/start.sh [RUNS]
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/start.py build "${1:-15}"

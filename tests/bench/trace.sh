#!/bin/sh
# tests/bench/trace.sh — per-event cost of probetop's aggregations on a
# USDT probe fired in a tight loop, against an empty BPF program attached
# to the same probe (the floor: by perf-event uprobe, and by uprobe_multi
# link as probetop attaches) and against bpftrace doing the same
# aggregation, in one run, as ratios (for the latency pair also an
# empty program that reads its cookie and the clock, the least any
# latency aggregation costs); then the engine's own CPU while it
# reads 10,000 keys every second, the console's on the same keys, and
# the console on 100,000 keys, all counted again every second: its
# frames (the work between two reads of the keyboard), its response to
# keys, its RSS (tests/bench/conbench.py says how). Goals (issues 3, 4,
# 32): every aggregation within 1.10x of the uprobe_multi floor and
# ahead of bpftrace; engine under 1% of a core, console under 2%; at
# 100,000 keys frames p99 under 50 ms and keys answered within 200 ms.
# probetop runs with --budget off: the budget would park the hot spec
# and the bench would measure nothing (its own bench: budget.sh). Run as
# root from anywhere: tests/bench/trace.sh; tests/bench/trace.sh keys
# runs only the parts on many keys.
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/trace.py build "$@"

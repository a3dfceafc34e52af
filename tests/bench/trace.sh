#!/bin/sh
# tests/bench/trace.sh — per-event cost of probetop's aggregations on a
# USDT probe fired in a tight loop, against an empty BPF program attached
# to the same probe (the floor: by perf-event uprobe, and by uprobe_multi
# link as probetop attaches) and against bpftrace doing the same
# aggregation, in one run, as ratios (for the latency pair also an
# empty program that reads its cookie and the clock, the least any
# latency aggregation costs); then the engine's own CPU while it
# reads 10,000 keys every second. Goals (issue 3): every aggregation
# within 1.10x of the uprobe_multi floor and ahead of bpftrace; engine
# under 1% of a core. probetop runs with --budget off: the budget would
# park the hot spec and the bench would measure nothing (its own bench:
# budget.sh). Run as root from anywhere: tests/bench/trace.sh
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/trace.py build

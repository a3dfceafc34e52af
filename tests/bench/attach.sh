#!/bin/sh
# tests/bench/attach.sh — how long probetop takes to attach to and detach
# from a running OpenJDK with `trace -p PID -e 'hotspot*:*'` (515
# locations in libjvm.so on OpenJDK 17): from start to its 'attached'
# line, and from SIGINT to its exit, with the uprobe links it held while
# attached. Goal (issue 21): detach within 1 s. With "perf", the same on
# perf-event uprobes (PROBETOP_UPROBE=perf: a link per location, the way
# kernels before 6.12 attach; slow to detach, minutes a round).
# Run as root from anywhere: tests/bench/attach.sh [perf]
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/attach.py build "$@"

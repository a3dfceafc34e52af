#!/bin/sh
# tests/bench/replay.sh — the console replay's reading of a one-hour
# recording (issue 37: opens in under 1 s, steps between intervals in
# under 50 ms): bench_record writes a synthetic recording with record.h
# (3,600 intervals of KEYS count rows, 10,000 unless $1, every row
# counted in every interval, as tests/bench/record.sh), then
# bench_replay times on the wall clock what `probetop replay FILE` does
# with record/replay.h: open (the index of the frames' heads, the first
# interval read), a time's interval peeked (g), End cold and again,
# Home, steps forward and back from the middle, and the range of the
# whole hour.
# Run from anywhere (no root needed): tests/bench/replay.sh [KEYS]
set -eu
cd "$(dirname "$0")/../.."
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
f=$(mktemp -u /tmp/bench_replay.XXXXXX)
trap 'rm -f "$f"' EXIT
build/tests/bench/bench_record "$f" "${1:-10000}" 3600 keep
build/tests/bench/bench_replay "$f"

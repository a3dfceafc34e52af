#!/bin/sh
# tests/bench/record.sh — what `trace --record` costs (issue 37): the
# fixture fires 10,000 distinct keys twice a second under
# `trace -i 1 -e 'fixture:ints=count(arg3)'`, for 60 s (or $1 s), twice
# without and twice with --record; prints probetop's user+sys time,
# the difference as % of a core (noisy: the runs' own spread is of its
# size), and the recording's bytes per interval and per minute; then
# bench_record, record.h's CPU time a call on a synthetic snapshot of as
# many keys, without the kernel. Goals: under 0.5% of a core, under 2 MB
# a minute.
# Run as root from anywhere: tests/bench/record.sh [SECS]
set -eu
cd "$(dirname "$0")/../.."
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/record.py build "$@"

#!/bin/sh
# tests/bench/soak.sh — the console under a PostgreSQL load for ten
# minutes (issue 32; not in CI): a PostgreSQL 15 server of its own
# (tests/integration/pgcluster.py), pgbench's TPC-B-like script with the
# simple protocol on 2 clients, so that every statement is a new text
# with its literals (over 100,000 distinct texts), and the console in a
# 120x40 tmux on every postgres process (-b) with the postgresql
# probeset and a spec keyed by the raw text (-e 'postgresql:query__start
# =count(str(arg0))'), whose map fills. Each minute: the console's frames
# (the work between two reads of its keyboard) and its response to keys
# (tests/bench/conbench.py), its RSS and CPU; at the end, how long q
# takes. Goals: frames p99 under 50 ms, keys within 200 ms, q at once.
# A `probetop -b postgres` running elsewhere on the machine sees this
# server too, and this one theirs: run it alone. Run as root from
# anywhere: tests/bench/soak.sh [SECONDS [CONSOLE OPTIONS]], e.g.
# tests/bench/soak.sh 180 --budget off
set -eu
cd "$(dirname "$0")/../.."
scripts/setup --bench
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/soak.py build "$@"

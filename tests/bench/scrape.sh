#!/bin/sh
# tests/bench/scrape.sh — what a Prometheus scrape of --listen costs with
# 10,000 series: the fixture makes 10,000 keys of a count (and, second,
# of a quantize: 10,000 histograms), trace --listen serves them, and
# sequential scrapes are timed in both formats (connect to last byte);
# then probetop's own CPU per interval with and without --listen (the
# rendering of both formats at each interval). Goal (issue 25): a scrape
# of 10,000 series under 20 ms. Run as root: tests/bench/scrape.sh
set -eu
cd "$(dirname "$0")/../.."
scripts/setup
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 tests/bench/scrape.py build

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The console with --listen 127.0.0.1:0 in a real terminal (tmux): it
says the URL in Messages; the endpoint serves the fixture's exact count
while the screen shows it; `z` zeroes Top's totals on screen, never the
exported counters, which stay cumulative; after q the port is closed."""
import os
import re
import socket
import sys
import time

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from console_tmux import PROBETOP, SESSION, keys, start, tmux, \
    wait_screen  # noqa: E402
from scrape import get, parse, promtool_check, series  # noqa: E402
from tap import Tap, Target, need_root  # noqa: E402

FIX = os.environ["FIXTURE_DIR"]


def wait_count(url, want, timeout=10):
    """Scrape until fixture:tick's counter is want; the last samples."""
    end = time.time() + timeout
    samples = {}
    while time.time() < end:
        samples = parse(get(url)[2])[0]
        if series(samples, "probetop_fixture_tick_total") == {(): want}:
            break
        time.sleep(0.2)
    return samples


tap = Tap()
need_root(tap)
t = Target([os.path.join(FIX, "sdt_target")])
try:
    start("%s -p %d -e fixture:tick -i 0.3 --listen 127.0.0.1:0" %
          (PROBETOP, t.pid), w=160, h=40)
    s = wait_screen(r"probes \(\d+ on\)")
    keys("L")
    s = wait_screen(r"serving metrics on http://127\.0\.0\.1:\d+/metrics")
    m = re.search(r"serving metrics on (http://127\.0\.0\.1:(\d+)/metrics)", s)
    tap.ok(m is not None, "Messages says the URL, with the port bound", s)
    url = m.group(1) if m else "http://127.0.0.1:1/metrics"
    port = int(m.group(2)) if m else 1
    keys("3")
    tap.eq(t.send("fire 1234").strip(), "fired 1234", "target fired")
    s = wait_screen(r"\s1,234\s+(-\s+)?fixture:tick", 6)
    tap.ok(re.search(r"\s1,234\s+(-\s+)?fixture:tick", s) is not None,
           "Top shows 1,234", s)
    samples = wait_count(url, "1234")
    tap.eq(series(samples, "probetop_fixture_tick_total"), {(): "1234"},
           "the console's endpoint serves the exact count")
    tap.eq(promtool_check(get(url)[2]), (0, ""),
           "promtool check metrics: the console's output")
    keys("z")
    tap.eq(t.send("fire 10").strip(), "fired 10", "target fired again")
    s = wait_screen(r"\s10\s+(-\s+)?fixture:tick", 6)
    tap.ok(re.search(r"\s10\s+(-\s+)?fixture:tick", s) is not None,
           "after z, Top counts from zero (10)", s)
    samples = wait_count(url, "1244")
    tap.eq(series(samples, "probetop_fixture_tick_total"), {(): "1244"},
           "z does not reset the exported counter: 1244")
    keys("q")
    s = wait_screen(r"EXITED \d+")
    tap.ok("EXITED 0" in s, "q: exit 0", s)
    c = socket.socket()
    tap.eq(c.connect_ex(("127.0.0.1", port)), 111,
           "after q nothing listens on the port (ECONNREFUSED)")
    c.close()
finally:
    tmux("kill-session", "-t", SESSION)
    t.stop()
tap.done()

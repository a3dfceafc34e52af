#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The budget spends first on what is on screen (issue 44): truthwork
(5 us calls, busy all the time, so that the default budget samples it)
under the console in a real terminal (tmux), with two specs on the same
probe, a count and a histogram (neither a probeset's frames, so neither
is preferred to begin with), recorded. On Top (3), whose frames role
none of them is, they share the budget: their duties alike. On the
Histogram (4), which draws the quantize spec, the budget prefers it
(governor.h: up to 0.8 of the room first): its duty at least 1.5 times
the count's in every interval wholly on it from a second after the
switch (read back from the recording, `replay --json`). Back on Top
they share again."""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from console_tmux import PROBETOP, SESSION, keys, start, tmux, \
    wait_screen  # noqa: E402
from tap import Tap, Target, need_root  # noqa: E402

FIX = os.environ["FIXTURE_DIR"]
COUNT = "truth:call=count(arg0)"
HIST = "truth:call=quantize(arg1)"
PHASE_S = 5.0  # on each view
SECS = 3 * PHASE_S + 3


def duties(objs):
    """[(end time s since attach, {spec: duty})] of the recording's
    intervals; a spec not sampled in one has duty 1."""
    return [(o["elapsed_s"], {a["spec"]: a.get("duty", 1.0) or 1.0
                              for a in o.get("aggs", [])})
            for o in objs if "interval" in o]


def phase(ds, zero, a, b):
    """The intervals wholly in the wall-clock span (a + 1, b]: a second
    after a switch, the budget's slots have all begun under it. The
    recording's clock starts at attach, some time in zero = (lo, hi):
    an interval ending at t began at t - 0.5 and ended by hi + t."""
    return [d for t, d in ds if zero[0] + t - 0.5 > a + 1 and
            zero[1] + t <= b]


tap = Tap()
need_root(tap)
tmp = tempfile.mkdtemp(prefix="console_prefer.")
rec = os.path.join(tmp, "prefer.ptr")
t = Target([os.path.join(FIX, "truthwork"), "5", "1", "steady", str(SECS)])
try:
    ts = time.monotonic()
    start("%s -p %d -i 0.5 -e '%s' -e '%s' --record %s" %
          (PROBETOP, t.pid, COUNT, HIST, rec), w=160, h=40)
    wait_screen(r"probes \(\d+ on\)")
    zero = (ts, time.monotonic())  # attached in between
    keys("3")
    t0 = time.monotonic()
    t.p.stdin.write("go\n")
    t.p.stdin.flush()
    time.sleep(PHASE_S)
    t1 = time.monotonic()
    keys("4")
    wait_screen(r"quantize\(arg1\)", 5)
    time.sleep(PHASE_S)
    t2 = time.monotonic()
    keys("3")
    time.sleep(PHASE_S)
    t3 = time.monotonic()
    keys("q")
    s = wait_screen(r"EXITED \d+")
    tap.ok("EXITED 0" in s, "q: exit 0", s)
    r = subprocess.run([PROBETOP, "replay", "--json", rec],
                       capture_output=True, text=True, timeout=60)
    tap.eq(r.returncode, 0, "replay --json: exit 0", r.stderr)
    ds = duties([json.loads(line) for line in r.stdout.splitlines()])
    top1 = phase(ds, zero, t0, t1)
    hist = phase(ds, zero, t1, t2)
    top2 = phase(ds, zero, t2, t3)
    sampled = [d for d in top1 + hist + top2
               if d.get(COUNT, 1) < 1 or d.get(HIST, 1) < 1]
    tap.ok(len(sampled) >= 5, "the budget sampled the specs (%d of %d "
           "intervals)" % (len(sampled), len(top1 + hist + top2)), ds)
    tap.ok(hist and all(d.get(HIST, 1) >= 1.5 * d.get(COUNT, 1)
                        for d in hist),
           "on the Histogram, the histogram's spec is the budget's first: "
           "its duty at least 1.5 times the count's in every interval",
           hist)
    for name, ph in (("before", top1), ("after", top2)):
        tap.ok(ph and all(d.get(HIST, 1) < 1.5 * d.get(COUNT, 1)
                          for d in ph),
               "on Top %s it, neither is preferred: the histogram's duty "
               "under 1.5 times the count's" % name, ph)
finally:
    tmux("kill-session", "-t", SESSION)
    t.stop()
tap.done()

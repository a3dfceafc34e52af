#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The truth harness on screen (issue 31): truthwork (5 us calls, busy all
the time, so the default budget samples it) under the console in a real
terminal (tmux). While it runs, the Probes view's HITS/s of truth:call
carries its mark (the workload's rate in one interval is not known to
it, so the number itself is held by the totals); when it is done, every
row of Top (the calls by key and the
histogram's count) holds against the workload's own counts by the rule
of its mark: unmarked exact, ~ within 15%, >= at most the truth; while
it runs, the rows are estimates (the estimator works on screen too; the
workload's exit, worked out of any window, may leave the totals
bounds), where prices are known to 15% (PROBETOP_DEBUG's cost line of a
trace of the target): where a trap is dear, its hits' cost most of the target's CPU
time in the windows, the console's rows are bounds (it shows no bound's
estimate) and their estimates are held by trace_truth."""
import json
import os
import re
import sys
import time

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from console_tmux import PROBETOP, SESSION, keys, screen, start, tmux, \
    wait_screen  # noqa: E402
from tap import Tap, Target, need_root, price_err, run  # noqa: E402
import truthcheck as tc  # noqa: E402

FIX = os.environ["FIXTURE_DIR"]
SECS = 4
MARKS = {"": tc.EXACT, "~": tc.ESTIMATE, "≥": tc.BOUND}


def number(text):
    """A count or rate as the console prints it ("~1,234", "≥5.2K")."""
    m = re.fullmatch(r"([~≥]?)([\d,.]+)([KMG]?)", text)
    if not m:
        return None, None
    v = float(m.group(2).replace(",", ""))
    v *= {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(3)]
    return MARKS[m.group(1)], v


def top_rows(s):
    """{key: (mark, total)} of truth:call's rows, and the histogram's."""
    rows = {}
    for line in s.splitlines():
        m = re.match(r"│\s*(\S+)\s+(\S+)\s+\S+\s+truth:call(?:\s+(\S+))?",
                     line)
        if not m:
            continue
        key = m.group(3) if m.group(3) != "quantize(arg1)" else "hist"
        rows[key] = number(m.group(2))
    return rows


def probes_rate(s):
    """(mark, hits a second) of the probe truth:call in the Probes view:
    "ON  truth:call  -  1  ~134,107  6.9%  truthwork ..." """
    m = re.search(r"truth:call +- +1 +(\S+) ", s)
    return number(m.group(1)) if m else (None, None)


tap = Tap()
need_root(tap)
t = Target([os.path.join(FIX, "truthwork"), "5", "1", "steady", str(SECS)])
try:
    # what probetop's prices are known to on this machine, as a trace
    # of the same target says at debug level
    r = run(["trace", "-p", str(t.pid), "-e", "truth:call", "-d", "0.2"],
            env=dict(os.environ, PROBETOP_DEBUG="1"))
    err = price_err(r.stderr.splitlines()) or 0.15
    start("%s -p %d -i 0.5 -e 'truth:call=count(arg0)' "
          "-e 'truth:call=quantize(arg1)'" % (PROBETOP, t.pid))
    wait_screen(r"probes \(\d+ on\)")
    t.p.stdin.write("go\n")
    t.p.stdin.flush()
    time.sleep(2.2)
    keys("2")
    s = wait_screen(r"truth:call +- +1 +[~≥][\d,.]+[KMG]? ", 5)
    mark, rate = probes_rate(s)
    tap.ok(mark in (tc.ESTIMATE, tc.BOUND) and rate,
           "Probes view: truth:call's HITS/s carries its mark (%s%.0f)" %
           (mark or "", rate or 0), s)
    keys("3")
    if err <= 0.15:
        s = wait_screen(r"│ *~[\d,.]+[KM]? +~[\d,]+ .*truth:call", 3)
        running = top_rows(s)
        tap.ok(any(m == tc.ESTIMATE for m, _ in running.values()),
               "Top, while it runs: the sampled rows are estimates (~), "
               "not only bounds", s)
    else:
        s = wait_screen(r"│ *[~≥][\d,.]+[KM]? +[~≥][\d,]+ .*truth:call", 3)
        running = top_rows(s)
        tap.ok(running and all(m in (tc.ESTIMATE, tc.BOUND)
                               for m, _ in running.values()),
               "Top, while it runs, prices known to %.0f%%: the sampled "
               "rows marked, estimates (~) or bounds (≥)" % (100 * err), s)
    truth = json.loads(t.p.stdout.readline())
    time.sleep(1.2)  # an interval after the workload's end
    s = screen()
    rows = top_rows(s)
    expect = {str(k): n for k, n in enumerate(truth["call_key"])}
    expect["hist"] = truth["calls"]
    bad = ["%s: %s%.0f, truth %d" % (k, m, v, expect.get(k, -1))
           for k, (m, v) in rows.items()
           if k not in expect or not tc.holds(v, expect[k], m)]
    tap.ok(set(rows) == set(expect) and not bad,
           "Top: every row's TOTAL holds against the truth by its mark "
           "(%d rows)" % len(rows), bad or s)
    keys("q")
    t.send("")
finally:
    tmux("kill-session", "-t", SESSION)
    t.stop()
tap.done()

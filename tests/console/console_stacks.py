#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Stacks view (7) in a real terminal (tmux) on pyenv's CPython 3.12
(the pysample probeset, profile:99=count(pystack)): a workload that
spends three times as long in alpha() as in beta() draws alpha three
times as wide as beta (within 25%), at 80x24 and at 200x50; / finds
beta and gives its share; g, Down, Down, Enter zooms into alpha and Esc
zooms out; S on Top's row jumps to its function's frames, and so does
Enter (Top's rows are CPU samples, as its title says: they time no call,
so there is no histogram); with no pystack aggregation Enter says why
there is nothing to open."""
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                "integration"))
from console_tmux import PROBETOP, SESSION, keys, screen, start, tmux, \
    wait_screen  # noqa: E402
from tap import Tap, need_root  # noqa: E402

PY312 = "/root/.pyenv/versions/3.12.1/bin/python3.12"

# alpha or beta at random, 3:1, each the same 2 ms of work: the CPU
# splits 3:1 whatever the phase of the 99 Hz samples
TWO_PATHS = """\
import random
import time
def work():
    end = time.perf_counter() + 0.002
    while time.perf_counter() < end:
        pass
def alpha():
    work()
def beta():
    work()
while True:
    if random.random() < 0.75:
        alpha()
    else:
        beta()
"""


def frame_width(s, name):
    """The columns of the frame named name on screen s (its name to the
    '|' that closes it), or 0."""
    for line in s.splitlines():
        m = re.search(r"(?:^|[│|])(%s\b[^|]*\|)" % re.escape(name), line)
        if m:
            return len(m.group(1))
    return 0


def samples(s):
    """The total on the status line (the cursor is on all)."""
    m = re.search(r"total ([\d,]+) \(", s)
    return int(m.group(1).replace(",", "")) if m else 0


def share(tap, name, lo, hi):
    """/ name: the search line gives its share of the samples."""
    keys("/", name, "Enter")
    s = wait_screen(r"/%s: \d+ frames?, [\d.]+%% of the samples" % name, 5)
    m = re.search(r"/%s: (\d+) frames?, ([\d.]+)%% of the samples" % name, s)
    pct = float(m.group(2)) if m else -1
    tap.ok(m is not None and lo <= pct <= hi,
           "/%s: %s%% of the samples (want %g..%g)" % (name, pct, lo, hi), s)
    keys("Escape")  # clears the search
    return pct


def widths(tap, size):
    """alpha and beta drawn 3:1 (within 25%) at this size."""
    s = screen()
    a, b = frame_width(s, "alpha"), frame_width(s, "beta")
    ratio = a / b if b else 0
    tap.ok(2.25 <= ratio <= 3.75,
           "%s: alpha %d columns, beta %d: %.2f, 3:1 within 25%%"
           % (size, a, b, ratio), s)


def test_stacks(tap, script):
    start("%s -- %s %s" % (PROBETOP, PY312, script), 80, 24)
    try:
        wait_screen(r"probes \(\d+ on\)", 10)
        keys("7")
        s = wait_screen(r"\|beta", 10)
        tap.ok("Stacks, profile:99=count(pystack)" in s and
               re.search(r"│all +\|", s) and "<module>" in s,
               "7: the Stacks view shows the pystack aggregation, all "
               "on top", s)
        end = time.time() + 20
        while samples(screen()) < 800 and time.time() < end:
            time.sleep(0.5)
        widths(tap, "80x24")
        a = share(tap, "alpha", 60, 85)
        b = share(tap, "beta", 15, 35)
        tap.ok(b > 0 and 2.25 <= a / b <= 3.75,
               "alpha's share %.1f%% is 3x beta's %.1f%% (within 25%%)"
               % (a, b))
        keys("g", "Down", "Down")  # from all: <module>, then its widest
        s = wait_screen(r"│ alpha  (two\.py:\d+  )?self", 3)
        tap.ok(re.search(r"│ alpha  (two\.py:\d+  )?self", s),
               "g, Down, Down: the cursor on alpha, said on the status "
               "line", s)
        keys("Enter")
        s = wait_screen(r"zoom: all > <module> > alpha", 3)
        tap.ok("zoom: all > <module> > alpha (Esc out)" in s and
               re.search(r"│alpha +\|│", s) and "beta" not in s,
               "Enter zooms: alpha is the full width, beta gone", s)
        keys("Escape")
        s = wait_screen(r"\|beta", 3)
        tap.ok("zoom:" not in s and re.search(r"\|beta", s),
               "Esc zooms out: beta is back", s)
        tmux("resize-window", "-t", SESSION, "-x", "200", "-y", "50")
        time.sleep(1.5)
        widths(tap, "200x50")
        keys("3")
        wait_screen(r"work +two\.py:3", 5)
        keys("S")
        s = wait_screen(r"work: 2 frames", 5)
        tap.ok(re.search(r"work: 2 frames, [\d.]+% of the samples", s) and
               re.search(r"│ work  two\.py:3  self", s),
               "S on Top's work: Stacks highlights work under alpha and "
               "beta, its file:line on the status line", s)
        keys("3")
        s = wait_screen(r"Top frames, CPU samples", 5)
        tap.ok("Top frames, CPU samples" in s and "SAMPLES/s" in s,
               "Top's title: its rows are CPU samples", s)
        keys("Escape")  # S's search cleared, back in Top
        keys("3", "/", "work", "Enter", "Enter")
        s = wait_screen(r"work: 2 frames", 5)
        tap.ok("Stacks, profile:99=count(pystack)" in s and
               re.search(r"work: 2 frames, [\d.]+% of the samples", s) and
               re.search(r"│ work  two\.py:3  self", s),
               "Enter on Top's work (CPU samples): Stacks highlights "
               "work, the cursor on it", s)
        keys("q")
        s = wait_screen(r"EXITED \d+", 5)
        tap.ok("EXITED 0" in s, "q quits", s)
    finally:
        tmux("kill-session", "-t", SESSION)


def test_no_stacks(tap, script):
    """Samples without a stack aggregation: Enter on a row says why there
    is nothing to open, on the status line."""
    start("%s -e 'profile:99=count(pyframe)' -- %s %s"
          % (PROBETOP, PY312, script), 120, 24)
    try:
        keys("3")
        s = wait_screen(r"profile:99 +work", 10)
        keys("/", "work", "Enter", "Enter")
        s = wait_screen(r"work: CPU samples time no call", 5)
        tap.ok("work: CPU samples time no call, so no histogram; its "
               "stacks need -e 'profile:99=count(pystack)'" in s and
               "Top probes, CPU samples" in s,
               "no pystack: Enter on a CPU-sample row says why there is "
               "nothing to open", s)
        keys("q")
        wait_screen(r"EXITED \d+", 5)
    finally:
        tmux("kill-session", "-t", SESSION)


def main():
    tap = Tap()
    need_root(tap)
    if not os.access(PY312, os.X_OK):
        tap.skip_all("no %s" % PY312)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "two.py")
        with open(script, "w") as f:
            f.write(TWO_PATHS)
        os.chmod(tmp, 0o755)
        test_stacks(tap, script)
        test_no_stacks(tap, script)
    tap.done()


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: MIT
"""CPython 3.14 (issue 47), Debian sid's, in the root `scripts/setup
--runtimes` builds, run as a container runs it (matrixroot.py: its own
PID and mount namespaces, the root as its /, so that its threads' ids,
its /proc and its files are the container's). probetop, on the host, by
-p and the host's pid:

- profile:99=count(pyframe) on a loop that does 3 units of work in
  heavy() for 1 in light() (each round's size at random, so that the
  samples do not keep step with it), 10 s: heavy()'s share of their
  samples (some 1,000: 5 points are 3.6 standard deviations) within 5
  points of its share of their time by the workload's own clock
  (time.perf_counter_ns), every sample of the two named (function, file
  as the container sees it, first line);
- profile:99=count(pyline): each function's samples on its own body's
  lines;
- profile:99=count(pystack): every stack that ends in heavy() or light()
  has its caller, spin(), above it.

Before, 3.14 was refused ("pyframe and pystack read CPython 3.8 to
3.13"); with its table but not its frames' new ways (f_executable a
tagged _PyStackRef, the owner byte at 74, past the 8 bytes a walk read
at the end of a frame's 80) every sample was dropped."""

from matrixroot import Container, check_runtime, present
from tap import Tap, need_root

tap = Tap()
need_root(tap)

SCRIPT = """\
import random, sys, time


def heavy(n):
    s = 0
    for i in range(n):
        s += i % 7
    return s


def light(n):
    s = 0
    for i in range(n):
        s += i % 7
    return s


def spin(secs):
    end = time.monotonic() + secs
    h = l = 0
    while time.monotonic() < end:
        n = int(2000 * (0.5 + random.random()))
        a = time.perf_counter_ns()
        heavy(3 * n)
        b = time.perf_counter_ns()
        light(n)
        h += b - a
        l += time.perf_counter_ns() - b
    return h, l


print("ready", flush=True)
for line in sys.stdin:
    print("done %d %d" % spin(float(line.split()[1])), flush=True)
"""
if not present(tap, "sid", "/usr/bin/python3.14"):
    tap.done()
check_runtime(tap, Container("sid", ["python3.14"], "spin.py", SCRIPT), "py",
              SCRIPT, "def ", "CPython 3.14")
tap.done()

# SPDX-License-Identifier: MIT
"""Driver of tests/bench/budget.sh (see there). argv[1]: the build dir."""

import json
import os
import subprocess
import sys
import tempfile

BUILD = sys.argv[1]
PROBETOP = os.path.join(BUILD, "ui/probetop")
PY = "/usr/bin/python3.11"
ROUNDS = 5
# f does K additions per call: 0 is the one-line function of the goal
SCRIPT = """\
import sys, time
n, k = int(sys.argv[1]), int(sys.argv[2])
def f(x):
    for j in range(k):
        x += j
    return x + 1
t0 = time.perf_counter()
s = 0
for i in range(n):
    s = f(s)
print("wall", time.perf_counter() - t0, flush=True)
"""


def run(script, n, k, budget=None):
    """(the loop's wall seconds, the final JSON object or None)"""
    if budget is None:
        r = subprocess.run([PY, script, str(n), str(k)],
                           capture_output=True, text=True, check=True)
        return float(r.stdout.split()[1]), None
    cmd = [PROBETOP, "trace", "-P", "python", "--json", "-i", "1"]
    if budget != "default":
        cmd += ["--budget", budget]
    r = subprocess.run(cmd + ["--", PY, script, str(n), str(k)],
                       capture_output=True, text=True, check=True)
    wall, objs = None, []
    for line in r.stdout.splitlines():
        if line.startswith("wall "):
            wall = float(line.split()[1])
        elif line.startswith("{"):
            objs.append(json.loads(line))
    return wall, objs[-1]


def calls_of_f(final):
    """f's calls in the final summary, its spec's duty (or 1) and the
    number's mark: "" exact, "~" an estimate, ">=" a lower bound."""
    for a in final["aggs"]:
        if a["spec"].startswith("python:function__return"):
            for row in a["rows"]:
                if row["key"][0] == "f":
                    mark = "~" if row.get("estimated") else \
                        ">=" if row.get("lower_bound") else ""
                    return row["count"], a.get("duty", 1.0), mark
    return 0, 1.0, ""


def promise(est, n, mark):
    """Whether a number keeps its mark's promise (issue 31)."""
    if mark == "~":
        return abs(est / n - 1) <= 0.15
    if mark == ">=":
        return est <= n
    return est == n


def main():
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(SCRIPT)
    try:
        n = 20000000
        bare, traced, final = [], [], None
        for _ in range(ROUNDS):
            bare.append(run(f.name, n, 0)[0])
            w, fin = run(f.name, n, 0, "default")
            traced.append(w)
            if final is None or w <= min(traced):
                final = fin
        ratio = min(traced) / min(bare)
        est, duty, mark = calls_of_f(final)
        shown = final["overhead"]["target_pct"]
        measured = 100.0 * (1.0 - min(bare) / min(traced))
        _, off = run(f.name, n, 0, "off")
        exact, _, _ = calls_of_f(off)
        print("20,000,000 calls of a one-line function, -P python, "
              "best of %d" % ROUNDS)
        print("  wall: bare %.3f s, default budget %.3f s: %.3fx "
              "(goal <= 1.10x: %s)" % (min(bare), min(traced), ratio,
                                       "met" if ratio <= 1.10 else
                                       "NOT met"))
        print("  calls of f shown: %s%d of %d: %.3fx, duty %.3f (goal: "
              "~ within 15%%, or >= at most the truth: %s)" %
              (mark, est, n, est / n, duty,
               "met" if promise(est, n, mark) else "NOT met"))
        print("  overhead shown %.1f%% of the target's CPU, measured "
              "slowdown %.1f%%" % (shown, measured))
        print("  --budget off: %d calls counted (%s)" %
              (exact, "exact" if exact == n else "NOT exact"))
        print("estimates by the work a call does (default budget):")
        print("  %8s %10s %12s %10s %6s %5s" % ("adds", "calls", "shown",
                                                "ratio", "duty", "kept"))
        for k in (10, 50, 200, 500, 1000):
            calls = int(3e9 / (100 + 22 * k))  # some 3 s of work
            _, fin = run(f.name, calls, k, "default")
            est, duty, mark = calls_of_f(fin)
            print("  %8d %10d %12s %9.3fx %6.3f %5s" %
                  (k, calls, mark + str(est), est / calls, duty,
                   "yes" if promise(est, calls, mark) else "NO"))
    finally:
        os.unlink(f.name)


main()

# SPDX-License-Identifier: MIT
"""Driver of tests/bench/cost.sh (see there). argv[1]: the build dir."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1]
PROBETOP = os.path.join(BUILD, "ui/probetop")
TARGET = os.path.join(BUILD, "tests/bench/bench_target")
PY = "/usr/bin/python3.11"
CALLS = """\
import time
def f(x):
    return x + 1
t0 = time.process_time()
s = 0
for i in range(%d):
    s = f(s)
print("cpu", time.process_time() - t0, flush=True)
"""


def share(bare, traced):
    """The part of the traced run's CPU that tracing took, in %."""
    return 100.0 * (1.0 - bare / traced)


def reported(objs):
    """Mean target_pct of the intervals the workload filled (events in
    them, and not the first or last, which it only partly covers)."""
    busy = [o["overhead"]["target_pct"] for o in objs
            if not o.get("final") and o["events"] > 0]
    busy = busy[1:-1] if len(busy) > 2 else busy
    return sum(busy) / len(busy) if busy else float("nan")


def probe_loop():
    """bench_target's tight loop of bench:hit, a string-key count on it:
    nearly all of the traced run is tracing."""
    t = subprocess.Popen([TARGET], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    pid = int(t.stdout.readline().split()[1])

    def loop(n):
        t.stdin.write("hit %d\n" % n)
        t.stdin.flush()
        return int(t.stdout.readline().split()[1])
    n = 2000000
    bare = min(loop(n) for _ in range(3))
    p = subprocess.Popen([PROBETOP, "trace", "-p", str(pid), "--json",
                          "-i", "0.5", "-e", "bench:hit=count(str(arg1))"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    p.stderr.readline()
    time.sleep(0.6)
    start, runs, traced = time.monotonic(), 0, 0
    while time.monotonic() - start < 4:
        traced += loop(n)
        runs += 1
    time.sleep(0.6)
    p.send_signal(signal.SIGINT)
    out = p.communicate()[0]
    t.kill()
    t.wait()
    objs = [json.loads(l) for l in out.splitlines()]
    return share(bare * runs, traced), reported(objs)


def python_calls():
    """python3.11 calling a one-line function 3,000,000 times, under the
    python probeset (counts per function on every return)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(CALLS % 3000000)
    try:
        bare = min(float(subprocess.run([PY, f.name], capture_output=True,
                                        text=True).stdout.split()[1])
                   for _ in range(3))
        r = subprocess.run([PROBETOP, "trace", "-P", "python", "--json",
                            "-i", "0.5", "--", PY, f.name],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    objs, traced = [], None
    for line in r.stdout.splitlines():
        if line.startswith("cpu "):
            traced = float(line.split()[1])
        else:
            objs.append(json.loads(line))
    return share(bare, traced), reported(objs)


print("workload                  measured  reported  reported/measured")
ok = True
for name, fn in (("probe loop (count str)", probe_loop),
                 ("python calls (-P python)", python_calls)):
    m, rep = fn()
    ratio = rep / m
    ok = ok and abs(ratio - 1) <= 0.25
    print("%-24s %8.1f%% %8.1f%%  %8.2fx" % (name, m, rep, ratio))
print("goal met (within 25%)" if ok else "goal NOT met (within 25%)")

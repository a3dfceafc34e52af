# SPDX-License-Identifier: MIT
"""Driver of tests/bench/rbframe.sh (see there). argv[1]: the build dir."""

import os
import subprocess
import sys
import time

from bpfstats import prog_ids, prog_stats, stats_on

BUILD = sys.argv[1]
PROBETOP = os.path.join(BUILD, "ui/probetop")
RUBY = "/usr/bin/ruby3.1"
N = 300000
ROUNDS = 5
SPIN_S = 3.0

# "calls N": N syswrites to /dev/null 12 frames deep, prints the seconds
# taken; "spin S": a loop of Ruby work for S seconds of CPU, prints the
# iterations it got through.
WORKLOAD = """\
$stdout.sync = true
NULL = File.open("/dev/null", "w")
def leaf(n)
  i = 0
  while i < n
    NULL.syswrite("x")
    i += 1
  end
end
def deep(d, n)
  d > 0 ? deep(d - 1, n) : leaf(n)
end
def spin(t)
  n = 0
  stop = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) + t
  while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) < stop
    1000.times { |i| n += i & 1 }
  end
  n
end
puts "ready"
while (line = $stdin.gets)
  cmd, arg = line.split
  if cmd == "calls"
    t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    deep(10, arg.to_i)
    puts Process.clock_gettime(Process::CLOCK_MONOTONIC) - t
  else
    puts spin(arg.to_f)
  end
end
"""


class Target:
    def __init__(self, script):
        self.p = subprocess.Popen([RUBY, "--disable-gems", script],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        assert self.p.stdout.readline().strip() == "ready"
        self.pid = self.p.pid

    def run(self, cmd):
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()
        return float(self.p.stdout.readline())

    def stop(self):
        self.p.kill()
        self.p.wait()


def trace(pid, spec):
    """probetop trace on pid, once attached (None for no spec)."""
    if spec is None:
        return None
    p = subprocess.Popen([PROBETOP, "trace", "-p", str(pid), "-i", "60",
                          "--budget", "off", "-e", spec],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    while "attached" not in p.stderr.readline():
        pass
    return p


def stop(p):
    if p is not None:
        p.terminate()
        p.communicate(timeout=60)


def per_event(script):
    """{spec: best ns per write over bare} and the bare ns per call."""
    specs = [None, "fn:libc.so.6:write=count(arg0)",
             "fn:libc.so.6:write=count(rbframe)",
             "fn:libc.so.6:write=count(rbline)",
             "fn:libc.so.6:write=count(rbstack)"]
    best = {}
    for _ in range(ROUNDS):
        for spec in specs:
            t = Target(script)
            tr = trace(t.pid, spec)
            s = min(t.run("calls %d" % N) for _ in range(2))
            stop(tr)
            t.stop()
            best[spec] = min(best.get(spec, s), s)
    bare = best.pop(None)
    return {k: (v - bare) / N * 1e9 for k, v in best.items()}, \
        bare / N * 1e9


def sampling(script, spec):
    """The profile program's CPU share and the target's slowdown under
    spec."""
    bare = traced = 0
    share = []
    for _ in range(ROUNDS):
        t = Target(script)
        bare = max(bare, t.run("spin %g" % SPIN_S))
        tr = trace(t.pid, spec)
        ids = prog_ids(tr.pid)
        c0, n0 = prog_stats("pt_profile", ids)
        w0 = time.monotonic()
        traced = max(traced, t.run("spin %g" % SPIN_S))
        c1, n1 = prog_stats("pt_profile", ids)
        share.append((n1 - n0) / ((time.monotonic() - w0) * 1e9) * 100)
        stop(tr)
        t.stop()
        print("  round: %d samples, %.0f ns each" %
              (c1 - c0, (n1 - n0) / max(c1 - c0, 1)))
    return min(share), max(share), (bare - traced) / bare * 100


def main():
    script = "/tmp/probetop-bench-rbframe.rb"
    with open(script, "w") as f:
        f.write(WORKLOAD)
    cost, bare = per_event(script)
    num = cost["fn:libc.so.6:write=count(arg0)"]
    print("per event on fn:libc.so.6:write (Debian's ruby3.1, %d "
          "syswrites 12 frames deep, best of %d; bare %.0f ns a call):" %
          (N, ROUNDS, bare))
    for spec, ns in cost.items():
        print("  %-40s %6.0f ns  %.2fx the numeric key" %
              (spec, ns, ns / num))
    fr = cost["fn:libc.so.6:write=count(rbframe)"] / num
    ln = cost["fn:libc.so.6:write=count(rbline)"] / num
    st = cost["fn:libc.so.6:write=count(rbstack)"] / num
    stats = stats_on()
    try:
        lo, hi, slow = sampling(script, "profile:99=count(rbstack)")
    finally:
        os.close(stats)
    print("profile:99=count(rbstack) on a busy ruby3.1 (%g s of CPU, %d "
          "rounds): the program %.3f%%-%.3f%% of one CPU; the target's "
          "work in its CPU time %+.1f%% against bare (noise: a few %%)" %
          (SPIN_S, ROUNDS, lo, hi, -slow))
    print("goals: rbframe under 2x a numeric key: %.2fx %s; rbline under "
          "2x: %.2fx %s; rbstack under 2x: %.2fx %s; sampling under 1%% of "
          "one CPU: %.3f%% %s" %
          (fr, "met" if fr < 2 else "NOT met", ln,
           "met" if ln < 2 else "NOT met", st,
           "met" if st < 2 else "NOT met", hi,
           "met" if hi < 1 else "NOT met"))


main()

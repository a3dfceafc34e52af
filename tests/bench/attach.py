# SPDX-License-Identifier: MIT
"""Driver of tests/bench/attach.sh (see there). argv[1]: the build dir;
argv[2] "perf": perf-event uprobes."""

import os
import signal
import statistics
import subprocess
import sys
import time

BUILD = sys.argv[1]
PROBETOP = os.path.join(BUILD, "ui/probetop")
WAIT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    "../integration/Wait.java")
SPEC = "hotspot*:*"
ROUNDS = 5
PERF = sys.argv[2:] == ["perf"]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../integration"))
import tap  # noqa: E402  (held_links: the links a process holds)


def uprobe_links(pid):
    """(links, locations) of the uprobe links process pid holds."""
    links = [l for l in tap.held_links(pid)
             if l["type"] in ("uprobe_multi", "perf")]
    return len(links), sum(l["cnt"] for l in links)


def one_round(pid, env):
    """(attach s, detach s, links, locations, the attached line)."""
    t0 = time.monotonic()
    p = subprocess.Popen([PROBETOP, "trace", "-p", str(pid), "-i", "60",
                          "-e", SPEC], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, env=env)
    line = ""
    for line in p.stderr:
        if "probetop: attached" in line:
            break
    t1 = time.monotonic()
    links = uprobe_links(p.pid)
    t2 = time.monotonic()
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=600)
    t3 = time.monotonic()
    if p.returncode != 0:
        sys.exit("probetop exited %d" % p.returncode)
    return t1 - t0, t3 - t2, links[0], links[1], line.strip()


def main():
    env = dict(os.environ)
    if PERF:
        env["PROBETOP_UPROBE"] = "perf"
    java = subprocess.Popen(["java", WAIT], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    pid = int(java.stdout.readline().split()[1])
    time.sleep(1)
    ver = subprocess.run(["java", "-version"], capture_output=True,
                         text=True).stderr.splitlines()[0]
    print("target: %s, pid %d; probetop trace -p PID -e '%s'%s" %
          (ver, pid, SPEC, " (perf-event uprobes)" if PERF else ""))
    rounds = ROUNDS if not PERF else 1
    att, det = [], []
    for i in range(rounds):
        a, d, links, locs, line = one_round(pid, env)
        att.append(a)
        det.append(d)
        print("  round %d: attach %.2f s  detach %.2f s  (%d links, %d "
              "locations: %s)" % (i + 1, a, d, links, locs, line))
    java.stdin.close()
    java.wait()
    print("attach  median %.2f s  best %.2f s" %
          (statistics.median(att), min(att)))
    print("detach  median %.2f s  best %.2f s  (goal: under 1 s)" %
          (statistics.median(det), min(det)))


main()

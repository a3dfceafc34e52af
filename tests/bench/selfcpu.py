# SPDX-License-Identifier: MIT
"""Driver of tests/bench/selfcpu.sh (see there). argv[1]: the build
dir."""

import os
import subprocess
import sys
import time

from conbench import cpu_s

BUILD = sys.argv[1]
PROBETOP = os.path.abspath(os.path.join(BUILD, "ui/probetop"))
SECS = 20
GOAL = 2.0  # % of a core
TARGETS = {
    "node 20": ["node", "-e", "setInterval(() => { let s = 0; "
                "for (let i = 0; i < 1e5; i++) s += i; }, 10)"],
    "python3.11": ["/usr/bin/python3.11", "-c",
                   "import time\n"
                   "def work(n):\n    return sum(i * i for i in range(n))\n"
                   "while True:\n    work(2000)\n    time.sleep(0.002)\n"],
}


def console_cpu(pid):
    """The console's own CPU over SECS on process pid, % of a core, and
    its header's second line (what it says of itself)."""
    name = "selfcpu-%d" % os.getpid()
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160",
                    "-y", "45", "%s -p %d" % (PROBETOP, pid)], check=True)
    try:
        con = None
        for _ in range(100):  # its first screen
            time.sleep(0.1)
            out = subprocess.run(["pgrep", "-n", "-f", "probetop -p %d" % pid],
                                 capture_output=True, text=True).stdout
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t",
                                     name], capture_output=True,
                                    text=True).stdout
            if out.strip() and "probes" in screen:
                con = int(out.split()[0])
                break
        if con is None:
            sys.exit("the console did not start on %d" % pid)
        time.sleep(2)
        c0, t0 = cpu_s(con), time.monotonic()
        time.sleep(SECS)
        c1, t1 = cpu_s(con), time.monotonic()
        head = subprocess.run(["tmux", "capture-pane", "-p", "-t", name],
                              capture_output=True,
                              text=True).stdout.splitlines()[1]
        return (c1 - c0) / (t1 - t0) * 100, head.strip()
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name])


def main():
    worst = 0.0
    for label, argv in TARGETS.items():
        t = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
        try:
            time.sleep(1)
            pct, head = console_cpu(t.pid)
        finally:
            t.kill()
            t.wait()
        worst = max(worst, pct)
        print("%-11s probetop %.2f%% of a core (goal %.0f%%); its header: %s"
              % (label, pct, GOAL, head))
    print("worst %.2f%% of a core: %s" % (worst, "met" if worst <= GOAL
                                          else "NOT met"))


main()

# SPDX-License-Identifier: MIT
"""tests/bench/start.sh's measurement: hyperfine over the four sessions
(bpftrace's and probetop's three) on `python3.11 -c pass`, and their
ratios to bpftrace's; attaching to a running python3.11, against
bpftrace's; then a target busy on every CPU, its CPU while probetop
starts on it against before. Usage: start.py BUILD_DIR RUNS"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time

PY = "/usr/bin/python3.11"
CMD = "%s -c pass" % PY
GOALS = {"python": 1.5, "pystack": 2.0}  # issue 45


def sessions(build):
    pt = os.path.join(build, "ui", "probetop")
    bt = ("bpftrace -q -e 'usdt:%s:python:function__return "
          "{ @n = count(); }' -c '%s'" % (PY, CMD))
    return [
        ("bpftrace", bt),
        ("usdt", "%s trace -e python:function__return -- %s" % (pt, CMD)),
        ("python", "%s trace -P python -- %s" % (pt, CMD)),
        ("pystack", "%s trace -e 'profile:99=count(pystack)' -- %s"
         % (pt, CMD)),
    ]


def main():
    build, runs = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "start.json")
        argv = ["hyperfine", "--warmup", "2", "--runs", runs,
                "--export-json", out, "--output", "null"]
        for name, cmd in sessions(build):
            argv += ["-n", name, cmd]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        res = {r["command"]: r for r in json.load(open(out))["results"]}
    base = res["bpftrace"]["median"]
    for name, _ in sessions(build):
        r = res[name]
        line = "%-8s %6.0f ms (median; %4.0f-%4.0f), %.2fx bpftrace's" % (
            name, r["median"] * 1e3, r["min"] * 1e3, r["max"] * 1e3,
            r["median"] / base)
        if name in GOALS:
            ok = r["median"] / base <= GOALS[name]
            line += "; goal <= %.1fx: %s" % (GOALS[name],
                                            "yes" if ok else "NO")
        print(line)


def cpu_ticks(pid):
    """pid's user and system time so far, in clock ticks."""
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return int(v[11]) + int(v[12])


def rate(pid, secs):
    """pid's CPU over secs, in CPUs."""
    t0, c0 = time.monotonic(), cpu_ticks(pid)
    time.sleep(secs)
    return (cpu_ticks(pid) - c0) / os.sysconf("SC_CLK_TCK") / (
        time.monotonic() - t0)


def busy_target():
    """xz compressing random bytes with a thread per CPU: a target that
    takes every core."""
    data = os.urandom(64 << 20)
    p = subprocess.Popen(["xz", "-T%d" % os.cpu_count(), "-6", "-c"],
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    threading.Thread(target=lambda: (p.stdin.write(data * 8),
                                     p.stdin.close()), daemon=True).start()
    return p


def target_during_start(build, rounds=5):
    """The target's CPU while probetop starts on it (-p, a native stack
    profile: pt_walk_native and pt_profile loaded, the calibration, the
    attach), against its CPU just before: goal at least 0.9 (issue 45)."""
    pt = os.path.join(build, "ui", "probetop")
    p = busy_target()
    time.sleep(1)
    ratios = []
    for _ in range(rounds):
        base = rate(p.pid, 1.0)
        t0, c0 = time.monotonic(), cpu_ticks(p.pid)
        tr = subprocess.Popen([pt, "trace", "-p", str(p.pid), "-n", "1",
                               "-e", "profile:99=count(ustack)"],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        for line in tr.stderr:
            if "attached" in line:
                break
        start_s = time.monotonic() - t0
        during = (cpu_ticks(p.pid) - c0) / os.sysconf("SC_CLK_TCK") / start_s
        tr.wait()
        ratios.append((during / base, start_s, base))
    p.kill()
    p.wait()
    ratios.sort()
    r, s, b = ratios[len(ratios) // 2]
    print("busy target (xz on %d CPUs, %.2f CPUs): its CPU while probetop "
          "starts (%.2f s): %.2f of before (median of %d; %s); goal >= "
          "0.9: %s" % (os.cpu_count(), b, s, r, rounds,
                       ", ".join("%.2f" % x[0] for x in ratios),
                       "yes" if r >= 0.9 else "NO"))


SERVICE = """
import time
def f(x):
    return x + 1
while True:
    for i in range(2000):
        f(i)
    time.sleep(0.002)
"""


def until_line(argv, word, env=None):
    """Seconds from starting argv until a line of its stderr or stdout
    holds word; then it is stopped."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=env)
    for line in p.stdout:
        if word in line:
            break
    dt = time.monotonic() - t0
    p.terminate()
    p.wait()
    return dt


def until_screen(argv, word):
    """Seconds from typing argv into a tmux pane until the pane shows
    word (polled every 10 ms); then q."""
    subprocess.run(["tmux", "kill-session", "-t", "ptstart"],
                   stderr=subprocess.DEVNULL)
    subprocess.run(["tmux", "new-session", "-d", "-s", "ptstart", "-x",
                    "160", "-y", "40"], check=True)
    t0 = time.monotonic()
    subprocess.run(["tmux", "send-keys", "-t", "ptstart",
                    " ".join(argv), "Enter"], check=True)
    dt = -1
    while time.monotonic() - t0 < 30:
        out = subprocess.run(["tmux", "capture-pane", "-p", "-t",
                              "ptstart"], capture_output=True,
                             text=True).stdout
        if word in out:
            dt = time.monotonic() - t0
            break
        time.sleep(0.01)
    subprocess.run(["tmux", "send-keys", "-t", "ptstart", "q"])
    time.sleep(0.5)
    subprocess.run(["tmux", "kill-session", "-t", "ptstart"],
                   stderr=subprocess.DEVNULL)
    return dt


def attach_running(build, rounds=5):
    """A running python3.11 service: bpftrace from launch to its BEGIN
    (its probes attached), probetop trace -p to its 'attached' line, and
    the console to its first whole screen (the header's probe count);
    goal for the console: at most 2x bpftrace's (issue 45)."""
    pt = os.path.abspath(os.path.join(build, "ui", "probetop"))
    svc = subprocess.Popen([PY, "-c", SERVICE])
    time.sleep(0.5)
    pid = str(svc.pid)
    bt = ["bpftrace", "-p", pid, "-e",
          "usdt:%s:python:function__return { @n = count(); } "
          "BEGIN { printf(\"ready\\n\"); }" % PY]
    res = {"bpftrace": [], "trace -p": [], "console -p": []}
    for _ in range(rounds):
        res["bpftrace"].append(until_line(bt, "ready"))
        res["trace -p"].append(until_line([pt, "trace", "-p", pid],
                                          "attached"))
        res["console -p"].append(until_screen([pt, "-p", pid], " probes ("))
    svc.kill()
    svc.wait()
    med = {k: sorted(v)[len(v) // 2] for k, v in res.items()}
    for k, v in res.items():
        print("%-10s %5.0f ms (median of %d; %s)%s" % (
            k, med[k] * 1e3, rounds, ", ".join("%.0f" % (x * 1e3) for x in v),
            "" if k == "bpftrace" else ", %.1fx bpftrace's%s" % (
                med[k] / med["bpftrace"],
                "; goal <= 2x: %s" % ("yes" if med[k] <= 2 * med["bpftrace"]
                                     else "NO") if k == "console -p"
                else "")))


if __name__ == "__main__":
    main()
    attach_running(sys.argv[1])
    target_during_start(sys.argv[1])

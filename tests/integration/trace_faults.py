# SPDX-License-Identifier: MIT
"""Faults a user meets: several probetops on one target, probetop killed
while the command it launched is held, a target that exits while probes
are being attached, a process in its own mount namespace. Exact counts
where there are counts; one line and a non-zero exit where it fails."""

import json
import os
import signal
import subprocess
import time

import tap
from tap import PROBETOP, FIXTURE_DIR

t_ = tap.Tap()
tap.need_root(t_)
EXE = os.path.join(FIXTURE_DIR, "sdt_target")
ENV = dict(os.environ, LD_LIBRARY_PATH=FIXTURE_DIR)
SPECS = ["fixture:sem", "fixture:multi=count(arg0)",
         "fixture:enter..fixture:leave=latency()"]


def state(pid):
    """The one-letter state of pid, or None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def wait_for(cond, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.02)
    return False


def start_trace(pid):
    args = [PROBETOP, "trace", "-p", str(pid), "--json", "-i", "100"]
    for s in SPECS:
        args += ["-e", s]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    line = p.stderr.readline()
    assert "attached" in line, line
    return p


def totals(p):
    """{spec: total} of the final summary of a trace -p ... --json."""
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    final = json.loads(out.splitlines()[-1])
    return ({a["spec"]: sum(r["total"] for r in a["rows"])
             for a in final["aggs"]}, final["drops"])


def several_instances():
    """Three probetops on one target, the same specs (the semaphore
    shared): each counts exactly what fired while it was attached."""
    t = tap.Target([EXE], env=ENV)
    ps = [start_trace(t.pid) for _ in range(3)]
    t.send("fire 100")
    got1 = totals(ps[1])  # the middle one goes first
    t.send("fire 50")
    got0, got2 = totals(ps[0]), totals(ps[2])
    want = lambda n: ({SPECS[0]: n, SPECS[1]: n, SPECS[2]: 3 * n}, 0)
    t_.eq(got1, want(100), "3 probetops on one target: the one stopped "
          "first counted 100 of each, 0 drops")
    t_.eq((got0, got2), (want(150), want(150)),
          "... the two others 150 each, 0 drops")
    t_.eq(t.send("fire 5"), "fired 5\n",
          "the target runs on after all three detached")
    t.stop()


def killed_while_held():
    """probetop -- COMMAND stops the command in its dynamic linker at
    each dlopen (the hold); killed at that moment, it must not leave the
    command stopped for good."""
    code = ("import sys; sys.stdin.readline(); import ctypes, decimal; "
            "print('done', flush=True)")
    for attempt in range(3):
        p = subprocess.Popen([PROBETOP, "trace", "-e", "python:gc__start",
                              "-i", "100", "--", "/usr/bin/python3.11", "-c",
                              code], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        p.stderr.readline()
        with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
            child = int(f.read().split()[0])
        # released: it runs python, not the held fork of probetop
        wait_for(lambda: os.path.realpath("/proc/%d/exe" % child)
                 .startswith("/usr/bin/python3"))
        os.kill(p.pid, signal.SIGSTOP)
        p.stdin.write("\n")
        p.stdin.flush()
        held = wait_for(lambda: state(child) == "T", 5)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        if held:
            break
    t_.ok(held, "the launched python is held at its dlopen while "
          "probetop is stopped")
    ended = wait_for(lambda: state(child) in (None, "Z"), 5)
    t_.ok(ended, "probetop killed (-9) while the command was held: it "
          "goes on and ends", "state %s" % state(child))
    if not ended:
        os.kill(child, signal.SIGKILL)
    t_.eq(p.stdout.read() if ended else "", "done\n",
          "... and finishes its work")


def exits_while_attaching():
    """The target is alive when probetop starts and gone before the
    probes are attached: said in one line, exit 1."""
    t = tap.Target([EXE], env=ENV)
    p = subprocess.Popen([PROBETOP, "trace", "-p", str(t.pid), "-e",
                          "fixture:tick"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)

    def has_bpf():  # past the liveness check: it loads the programs
        # (their maps, dozens of fds: a probe of what the kernel can do
        # opens one or two before that check, which a slow machine's
        # start held open long enough to be seen: "no such process")
        try:
            return sum("bpf" in os.readlink("/proc/%d/fd/%s" % (p.pid, fd))
                       for fd in os.listdir("/proc/%d/fd" % p.pid)) >= 10
        except OSError:
            return False
    wait_for(has_bpf)
    os.kill(p.pid, signal.SIGSTOP)
    t.stop()
    os.kill(p.pid, signal.SIGCONT)
    out, err = p.communicate(timeout=60)
    t_.eq((p.returncode, err),
          (1, "probetop: pid %d exited before its probes were attached\n"
           % t.pid), "a target that exits while probetop attaches: one "
          "line, exit 1")


def mount_namespace():
    """A process whose executable and library exist only in its own
    mount namespace (a container's): found through /proc, counted."""
    script = ("mount -t tmpfs none /mnt && cp %s %s /mnt/ && cd /mnt && "
              "LD_LIBRARY_PATH=/mnt exec ./sdt_target" %
              (EXE, os.path.join(FIXTURE_DIR, "libsdtfix.so")))
    t = tap.Target(["unshare", "-m", "--propagation", "private", "sh", "-c",
                    script])
    t_.ok(os.readlink("/proc/%d/exe" % t.pid) == "/mnt/sdt_target" and
          not os.path.exists("/mnt/sdt_target"),
          "the target runs a /mnt/sdt_target that only its namespace has")
    args = [PROBETOP, "trace", "-p", str(t.pid), "--json", "-i", "100",
            "-e", "fixture:multi=count(arg0)", "-e", "fixlib:call",
            "-e", "fixture:str=count(str(arg0))"]
    p = subprocess.Popen(args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    p.stderr.readline()
    t.send("fire 30")
    got = totals(p)
    t_.eq(got, ({"fixture:multi=count(arg0)": 30, "fixlib:call": 30,
                 "fixture:str=count(str(arg0))": 30}, 0),
          "a process in its own mount namespace: exact counts, in the "
          "executable and its library")
    t.stop()


several_instances()
killed_while_held()
exits_while_attaching()
mount_namespace()
t_.done()

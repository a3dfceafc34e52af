# SPDX-License-Identifier: MIT
"""The matrix suite's common part (issue 47): a runtime of another Debian
release, in the root `scripts/setup --runtimes` builds for it
(/var/cache/probetop/roots/SUITE), run as a container runs it (its own
PID and mount namespaces, the root as its /), and the checks every case
makes of a 3:1 heavy:light workload that times itself."""

import os
import shutil
import subprocess
import time

from tap import Trace, agg_of

ROOTS = os.environ.get("PROBETOP_ROOTS", "/var/cache/probetop/roots")


class Container:
    """argv (a program of the root suite's, on a script written into its
    /tmp/pt-matrix as name) in PID and mount namespaces of its own, with
    the root as / and its own /proc: it is pid 1 there. It prints
    'ready', then answers each line sent with one. pid: its pid on the
    host (None if it did not start)."""

    def __init__(self, suite, argv, name, script):
        self.root = os.path.join(ROOTS, suite)
        self.work = os.path.join(self.root, "tmp", "pt-matrix")
        os.makedirs(self.work, exist_ok=True)
        with open(os.path.join(self.work, name), "w") as f:
            f.write(script)
        self.path = "/tmp/pt-matrix/" + name
        self.p = subprocess.Popen(
            ["unshare", "--pid", "--mount", "--fork", "chroot", self.root,
             "/bin/sh", "-c", "mount -t proc proc /proc && exec " +
             " ".join(argv + [self.path])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self.p.stdout.readline().strip() == "ready"
        kids = open("/proc/%d/task/%d/children" %
                    (self.p.pid, self.p.pid)).read().split()
        self.pid = int(kids[0]) if ready and kids else None

    def pid_one(self):
        """Whether it is pid 1 of a PID namespace of its own."""
        status = open("/proc/%d/status" % self.pid).read()
        return "NSpid:\t%d\t1\n" % self.pid in status

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().split()

    def stop(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)
        shutil.rmtree(self.work, ignore_errors=True)


def present(tap, suite, exe):
    """Whether the root of suite has exe (a failure said if not)."""
    path = os.path.join(ROOTS, suite, exe.lstrip("/"))
    return tap.ok(os.access(path, os.X_OK), "%s in the %s root" %
                  (exe, suite), "no %s: scripts/setup --runtimes builds it"
                  % path)


def lines_of(script, opener):
    """(first line, the lines of its body) of the function whose first
    line starts with opener, its body the lines after it that are
    indented (or a lone "{", PHP's)."""
    src = script.splitlines()
    first = next(i for i, l in enumerate(src) if l.startswith(opener)) + 1
    last = first
    while last < len(src) and (src[last].startswith("    ") or
                               src[last] == "{"):
        last += 1
    return first, set(range(first + 1, last + 1))


def split(tap, rows, truth, what):
    """heavy()'s share of the samples of rows (key[0] the function) within
    5 points of truth (its share of the time by the workload's own clock,
    %), over at least 600 samples."""
    n = {fn: sum(r["total"] for r in rows if r["key"][0] == fn)
         for fn in ("heavy", "light")}
    share = 100.0 * n["heavy"] / max(1, n["heavy"] + n["light"])
    print("# %s: heavy %d, light %d samples: %.1f%%; by its clock %.1f%%" %
          (what, n["heavy"], n["light"], share, truth))
    tap.ok(n["heavy"] + n["light"] >= 600 and abs(share - truth) <= 5,
           "%s: heavy()'s share of the samples within 5 points of the "
           "workload's own clock" % what, "%d heavy, %d light: %.1f%% "
           "against %.1f%%" % (n["heavy"], n["light"], share, truth))


def check_runtime(tap, c, lang, script, opener, what, secs=10):
    """The checks of one runtime c (a Container, its workload script):
    profile:99 of LANGframe, LANGline and LANGstack while it spins secs
    (some 1,000 samples at 10 s: 5 points are 3.6 standard deviations),
    by -p and the host's pid. heavy()'s share within 5 points of the
    workload's clock (split()); both functions named by the file as the
    container sees it and their first line (opener: how the script's
    line that begins one starts, "def " or "function "); LANGline on each
    function's own body's lines; LANGstack with their caller, spin(),
    above them."""
    frame, line, stack = ("profile:99=count(%s%s)" % (lang, k)
                          for k in ("frame", "line", "stack"))
    tap.ok(c.pid is not None and c.pid_one(),
           "%s runs as pid 1 of its own PID namespace" % what, c.pid)
    tr = Trace(["-p", str(c.pid), "-i", "1", "-e", frame, "-e", line,
                "-e", stack])
    tap.ok(tr.attached, "attached by the host's pid", "".join(tr.err))
    done = c.send("spin %d" % secs)
    time.sleep(0.2)
    objs = tr.finish()
    c.stop()
    fin = objs[-1] if objs else {}
    h, l = (int(x) for x in done[1:3]) if len(done) == 3 else (0, 1)

    rows = agg_of(fin, frame).get("rows", [])
    split(tap, rows, 100.0 * h / (h + l), what)
    fns = {fn: lines_of(script, opener + fn + "(")
           for fn in ("heavy", "light")}
    bad = [r["key"] for r in rows if r["key"][0] in fns and
           r["key"][1:] != [c.path, fns[r["key"][0]][0]]]
    tap.ok(not bad, "heavy() and light() named by the container's file "
           "and their first line", bad)

    rows = agg_of(fin, line).get("rows", [])
    off = [r["key"] for r in rows if r["key"][0] in fns and
           r["key"][2] not in fns[r["key"][0]][1]]
    on = sum(r["total"] for r in rows if r["key"][0] in fns)
    tap.ok(on >= 600 and not off, "%sline: each function's samples on its "
           "own body's lines" % lang, off or on)

    stacks = [r["key"][0] for r in agg_of(fin, stack).get("rows", [])]
    ends = [k for k in stacks if k and k[-1] in fns]
    tap.ok(ends and all(k[-2:-1] == ["spin"] for k in ends),
           "%sstack: heavy() and light() under their caller, spin()"
           % lang, stacks[:6])

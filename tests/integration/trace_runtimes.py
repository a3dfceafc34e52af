# SPDX-License-Identifier: MIT
"""probetop trace on real runtimes: exact per-function call counts on
Debian's /usr/bin/python3.11 (keyed by function, file and line, on
function__return, the probe that fires on every return on 3.11); one
row per function by its first line (pyfirstline), whatever line it
returns from, with its latency under the same key, and by the line it
returns from where frames cannot be read (-b); a library dlopen()ed
after attach; the IO of a process, exact by class, and the IO beyond
what the kernel can time, counted as drops."""

import os
import signal
import tempfile
import time

from tap import (FIXTURE_DIR, Tap, Target, Trace, agg_of, dlopen_script,
                 held_maps, need_root, rows_by_key, run, trace_wait_err)

tap = Tap()
need_root(tap)
PY = "/usr/bin/python3.11"
CALLS = ("python:function__return="
         "count(str(arg1), str(arg0), arg2)")
DTRACE_CALLS = "python:function-return=count(str(arg1), str(arg0), arg2)"
# the python probeset's frames: a function by its first line
FIRST_CALLS = ("python:function__return="
               "count(str(arg1),str(arg0),pyfirstline)")
FIRST_LAT = ("python:function__entry..python:function__return="
             "latency(str(arg1),str(arg0),pyfirstline)")
N_CB = 3000

# cb returns from three lines, B.run from two; A.run and B.run share a
# name and a file; decorated's first line is its decorator's (deco runs
# before "ready")
BY_FIRST = """\
import sys
def cb(i):
    if i % 3 == 0:
        return 0
    if i % 3 == 1:
        return 1
    return 2
class A:
    def run(self):
        return 1
class B:
    def run(self):
        if self:
            return 2
        return 3
def deco(f):
    return f
@deco
def decorated():
    return 4
print("ready", flush=True)
sys.stdin.readline()
for i in range(N_CB):
    cb(i)
a, b = A(), B()
for _ in range(7):
    a.run()
    b.run()
    b.run()
decorated()
print("done", flush=True)
sys.stdin.readline()
""".replace("N_CB", str(N_CB))

WORKLOAD = """\
import sys
def leaf(x): return x + 1
def mid(n):
    t = 0
    for i in range(n):
        t += leaf(i)
    return t
print("ready", flush=True)
sys.stdin.readline()
for _ in range(10):
    mid(30)
print("done", flush=True)
sys.stdin.readline()
"""

with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "workload.py")
    with open(script, "w") as f:
        f.write(WORKLOAD)
    lines = WORKLOAD.splitlines()
    leaf_line = lines.index("def leaf(x): return x + 1") + 1
    mid_ret = lines.index("    return t") + 1

    # -- python: calls per (function, file, line) ------------------------
    t = Target([PY, script])
    tr = Trace(["-p", str(t.pid), "-i", "30", "-e", CALLS,
                "-e", DTRACE_CALLS])
    tap.eq(tr.attached, "probetop: attached 2 probes to %d" % t.pid,
           "python3.11: function__return attached (as itself and as "
           "DTrace's function-return)")
    tap.eq(t.send("go").strip(), "done", "workload ran")
    tr.finish()
    for spec, how in ((CALLS, "function__return"),
                      (DTRACE_CALLS, "DTrace's function-return")):
        rows = {tuple(r["key"]): r["count"]
                for r in agg_of(tr.final(), spec)["rows"]
                if r["key"][1] == script}
        tap.eq(rows, {("leaf", script, leaf_line): 300,
                      ("mid", script, mid_ret): 10},
               "exact calls per (function, file, line), by %s" % how)
    # a probe the probeset knows may stay silent: said, not left to guess
    r = run(["trace", "-p", str(t.pid), "-n", "1", "-i", "0.2", "-e",
             "python:function__entry=count()"])
    tap.ok("probetop: python:function__entry may not fire: CPython 3.11 "
           "fires it only while the line probe is on" in r.stderr,
           "-e on python:function__entry: the 3.11 quirk is explained",
           r.stderr)
    t.stop()

    # -- python: a function is one row, by its first line ---------------
    first = os.path.join(tmp, "first.py")
    with open(first, "w") as f:
        f.write(BY_FIRST)
    flines = BY_FIRST.splitlines()

    def fline(text, after=0):
        return flines.index(text, after) + 1

    want = {("cb", first, fline("def cb(i):")): N_CB,
            ("run", first, fline("    def run(self):")): 7,
            ("run", first, fline("    def run(self):",
                                 fline("class B:"))): 14,
            ("decorated", first, fline("@deco")): 1}
    t = Target([PY, first])
    # the latency pair needs function__entry, which 3.11 fires only while
    # the line probe is on (python/cpython#98894)
    tr = Trace(["-p", str(t.pid), "-i", "30", "--budget", "off",
                "-e", FIRST_CALLS, "-e", FIRST_LAT,
                "-e", "python:line=count()"])
    tap.eq(t.send("go").strip(), "done", "first.py ran")
    tr.finish()
    calls = {k: v for k, v in rows_by_key(agg_of(tr.final(), FIRST_CALLS))
             .items() if k[1] == first}
    tap.eq(calls, want, "pyfirstline: one row per function at its first "
           "line, exact (returns from several lines, two methods of one "
           "name, a decorated function)")
    lat = agg_of(tr.final(), FIRST_LAT)
    lrows = {tuple(r["key"]): r for r in lat["rows"] if r["key"][1] == first}
    tap.eq({k: r["count"] for k, r in lrows.items()}, want,
           "pyfirstline: the same rows timed, each call once")
    cb = lrows.get(("cb", first, fline("def cb(i):")), {})
    tap.ok(cb.get("sum", 0) > 0 and cb.get("p50", 0) > 0 and
           cb.get("p99", 0) >= cb.get("p50", 0) and
           lat["drops"] == 0 and lat["unmatched"] == 0,
           "pyfirstline: cb's latency has a mean, p50 and p99; no drops, "
           "no unmatched returns", cb)
    t.stop()

    # -b: no one process's frames to read: by the line it returns from,
    # and said
    t = Target([PY, first])
    tr = Trace(["-b", PY, "-P", "python", "-i", "30", "--budget", "off"])
    tap.eq(t.send("go").strip(), "done", "first.py ran")
    tr.finish()
    ret_calls = "python:function__return=count(str(arg1),str(arg0),arg2)"
    rows = agg_of(tr.final(), ret_calls)
    cb_rows = {} if rows is None else {
        tuple(r["key"]): r["count"] for r in rows["rows"]
        if r["key"][:2] == ["cb", first] and r["pid"] == t.pid}
    tap.eq(cb_rows, {("cb", first, fline("        return 0")): N_CB // 3,
                     ("cb", first, fline("        return 1")): N_CB // 3,
                     ("cb", first, fline("    return 2")): N_CB // 3},
           "-b: python's frames by the line each call returns from")
    tap.ok(agg_of(tr.final(), FIRST_CALLS) is None and
           "frames.calls is '%s': the first choice reads Python frames"
           % ret_calls in tr.stderr,
           "-b: the alternative said on stderr", tr.stderr)
    t.stop()

    # -- a library dlopen()ed after attach ------------------------------
    lib = os.path.join(FIXTURE_DIR, "libsdtfix.so")
    dl = os.path.join(tmp, "dl.py")
    dlopen_script(dl, lib, "for i in range(10): lib.sdtfix_call(i)\n"
                  "print('called', flush=True)\n"
                  "sys.stdin.readline()\n")
    t = Target([PY, dl])
    tr = Trace(["-p", str(t.pid), "-i", "30", "-e", "fixlib:call=sum(arg0)"])
    tap.ok(any("no probe matches yet; waiting" in l for l in tr.err),
           "before dlopen the spec waits", "".join(tr.err))
    tap.eq(t.send("load").strip(), "loaded", "dlopen done")
    line = trace_wait_err(tr, "more locations")
    tap.eq(line, "probetop: attached 1 more locations in new mappings of %d"
           % t.pid, "the new library is noticed and attached")
    tap.eq(t.send("call").strip(), "called", "library called")
    tr.finish()
    a = agg_of(tr.final(), "fixlib:call=sum(arg0)")
    tap.eq([(r["count"], r["sum"]) for r in a["rows"]], [(10, 45)],
           "exact counts in a dlopen()ed library (semaphore raised late)")
    t.stop()

    # -- IO: exact calls and bytes per class, children's included -------
    # a child forked before attach (found in /proc) and one forked after
    # (followed by the kernel) pwrite too: their IO counts for the target
    io = os.path.join(tmp, "io.py")
    with open(io, "w") as f:
        f.write("import os, sys\n"
                "fd = os.open(%r, os.O_RDWR | os.O_CREAT, 0o600)\n"
                "r, w = os.pipe()\n"
                "early = os.fork()\n"
                "if early == 0:\n"
                "    os.read(r, 1)\n"
                "    for i in range(3): os.pwrite(fd, b'y' * 100, 0)\n"
                "    os._exit(0)\n"
                "print('ready', flush=True)\n"
                "sys.stdin.readline()\n"
                "for i in range(10): os.pwrite(fd, b'x' * 4096, i * 4096)\n"
                "for i in range(7): os.pread(fd, 512, i * 512)\n"
                "os.pread(fd, 100, 40960 - 50)\n"
                "os.fsync(fd)\n"
                "os.fdatasync(fd); os.fdatasync(fd)\n"
                "os.write(w, b'g'); os.waitpid(early, 0)\n"
                "late = os.fork()\n"
                "if late == 0:\n"
                "    for i in range(5): os.pwrite(fd, b'z' * 200, 0)\n"
                "    os._exit(0)\n"
                "os.waitpid(late, 0)\n"
                "print('done', flush=True)\n"
                "sys.stdin.readline()\n" % os.path.join(tmp, "data"))
    t = Target([PY, io])
    tr = Trace(["-p", str(t.pid), "-i", "30", "-P", "io"])
    tap.eq(t.send("go").strip(), "done", "IO workload ran")
    tr.finish()
    got = {r["class"]: (r["calls"], r["bytes"], r["errors"])
           for r in tr.final().get("io", []) if r["pid"] == t.pid}
    tap.eq({k: got.get(k) for k in ("pwrite", "pread", "fsync", "fdatasync")},
           {"pwrite": (10 + 3 + 5, 40960 + 300 + 1000, 0),
            "pread": (8, 7 * 512 + 50, 0),
            "fsync": (1, 0, 0), "fdatasync": (2, 0, 0)},
           "IO: exact calls and bytes per syscall class, with the IO of a "
           "child running at attach and of one forked after")
    tap.eq(sorted({r["pid"] for r in tr.final()["io"]}), [t.pid],
           "IO: every row counts for the target")
    tap.eq(tr.final().get("process"), None,
           "-P io alone: no process events")
    tap.ok(all(r["ns"] > 0 and sum(c for _, c in r["buckets"]) == r["calls"]
               for r in tr.final()["io"]), "IO: latency histograms")
    tap.eq(tr.final().get("kernel_drops"),
           {"in_flight": 0, "io": 0, "process": 0}, "IO: nothing lost")
    t.stop()

    # -- IO under way beyond the in-flight table: counted as drops ------
    # with --aggsize 1m the table holds CAP calls; CAP + 20 threads block
    # in recv (the first CAP are timed, 20 are not), then the main thread's
    # send (one more not timed) wakes them: exactly CAP recvs of a byte
    busy = os.path.join(tmp, "busy.py")
    with open(busy, "w") as f:
        f.write("import os, signal, socket, sys, threading\n"
                "threading.stack_size(256 << 10)\n"
                "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})\n"
                "a, b = socket.socketpair()\n"
                "print('ready', flush=True)\n"
                "n = int(sys.stdin.readline())\n"
                "ts = [threading.Thread(target=b.recv, args=(1,))\n"
                "      for _ in range(n)]\n"
                "for t in ts: t.start()\n"
                "signal.sigwait({signal.SIGUSR1})\n"
                "a.sendall(b'x' * n)\n"
                "for t in ts: t.join()\n"
                "print('done', flush=True)\n"
                "sys.stdin.readline()\n")
    t = Target([PY, busy])
    tr = Trace(["-p", str(t.pid), "-i", "30", "-P", "io",
                "--aggsize", "1m"])
    [cap] = [m["max_entries"] for m in held_maps(tr.p.pid)
             if m.get("name") == "io_start"]
    n = cap + 20
    t.p.stdin.write("%d\n" % n)
    t.p.stdin.flush()
    blocked = 0
    end = time.time() + 60
    while blocked < n and time.time() < end:
        blocked = 0
        for tid in os.listdir("/proc/%d/task" % t.pid):
            try:
                with open("/proc/%d/task/%s/syscall" % (t.pid, tid)) as f:
                    blocked += f.read().startswith("45 ")  # recvfrom
            except OSError:
                pass
        time.sleep(0.05)
    tap.eq(blocked, n, "%d threads blocked in recv" % n)
    os.kill(t.pid, signal.SIGUSR1)
    tap.eq(t.p.stdout.readline().strip(), "done", "all woke")
    tr.finish()
    got = {r["class"]: (r["calls"], r["bytes"])
           for r in tr.final().get("io", [])}
    tap.eq((got.get("recv"), got.get("send"),
            tr.final().get("kernel_drops")),
           ((cap, cap), None, {"in_flight": 21, "io": 0, "process": 0}),
           "IO beyond the in-flight table (%d): exactly %d recvs timed, "
           "21 calls dropped and said" % (cap, cap))
    tap.eq(tr.final()["drops"], 21, "IO drops are in the drops total")
    t.stop()

    # -- a process that execs: the new executable is found and attached --
    ex = os.path.join(tmp, "exec.py")
    exe = os.path.join(FIXTURE_DIR, "sdt_target")
    with open(ex, "w") as f:
        f.write("import os, sys\n"
                "print('ready', flush=True)\n"
                "sys.stdin.readline()\n"
                "os.execv(%r, [%r])\n" % (exe, exe))
    t = Target([PY, ex])
    tr = Trace(["-p", str(t.pid), "-i", "30", "-e", "fixture:tick"])
    t.p.stdin.write("exec\n")
    t.p.stdin.flush()
    tap.ok(t.p.stdout.readline().startswith("ready"), "target exec()ed")
    line = trace_wait_err(tr, "exec'd")
    tap.eq(line, "probetop: %d exec'd %s: attached 1 probe"
           % (t.pid, os.path.realpath(exe)),
           "the new executable is noticed, and said", line)
    tap.eq(t.send("fire 12").strip(), "fired 12", "fired after exec")
    tr.finish()
    tap.eq([r["count"] for r in agg_of(tr.final(), "fixture:tick")["rows"]],
           [12], "exact counts in the executable a process exec()ed")
    t.stop()

# -- ruby launched: its probes live in libruby, a DT_NEEDED library --------
OBJ = "ruby:object__create=count(str(arg0))"
tr = Trace([ "-e", OBJ, "--", "ruby3.1", "-e",
             "class Foo; end; 1000.times { Foo.new }"])
tap.ok(tr.attached is not None and
       tr.attached.startswith("probetop: attached 1 probes to "),
       "ruby: attached before it runs", "".join(tr.err))
tr.finish(sig=None)
rows = {tuple(r["key"]): r["count"] for r in agg_of(tr.final(), OBJ)["rows"]}
tap.eq((tr.rc, rows.get(("Foo",))), (0, 1000),
       "-- ruby3.1: exact objects created per class, from libruby")

# -- run through sudo, the command runs as the invoking user ---------------
with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o777)
    out = os.path.join(tmp, "uid")
    env = dict(os.environ, SUDO_UID="65534", SUDO_GID="65534")
    tr = Trace(["-e", "fixture:tick", "--", "sh", "-c",
                "id -u > %s; id -g >> %s" % (out, out)], env=env)
    tr.finish(sig=None)
    with open(out) as f:
        tap.eq(f.read().split(), ["65534", "65534"],
               "SUDO_UID/SUDO_GID: the command drops to the invoking user")

# -- the command gets the signals probetop blocks for itself ---------------
def default_signals():
    """probetop as from a terminal (a background job of a script would
    start it with SIGINT ignored, which the command rightly inherits)."""
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "sigs")
    tr = Trace(["-e", "fixture:tick", "--", "sh", "-c",
                "exec grep -E '^Sig(Blk|Ign)' /proc/self/status > %s" % out],
               preexec_fn=default_signals)
    tr.finish(sig=None)
    with open(out) as f:
        tap.eq(f.read().split(), ["SigBlk:", "0000000000000000",
                                  "SigIgn:", "0000000000000000"],
               "the command starts with no signal blocked or ignored "
               "(Ctrl-C and SIGTERM reach it)")

tap.done()

# SPDX-License-Identifier: MIT
"""probetop trace on commands that are scripts, and on processes that
exec(): a "#!/bin/sh" script that execs python3.11 and a
"#!/usr/bin/python3.11" script count exactly what python does (its
explicit collections: gc__start keyed by generation, 2 for
gc.collect(); the automatic generation-0 collections of start-up run
before the script can gc.disable() them, and os._exit() skips those of
the end); a fixture that fires K times and exec()s its twin (or itself),
which fires L times, counts K+L and says the exec; -p of a process that
exec()s finds the new image; scripts whose interpreter is missing, not
executable or loops are one-line errors; a command trace started ends
when trace stops before it (-n 1 on sleep 60); the start's lower
priority is not the command's, nor probetop's once attached."""

import os
import stat
import tempfile

from tap import (FIXTURE_DIR, Tap, Target, Trace, agg_of, need_root,
                 rows_by_key, run, trace_wait_err)

tap = Tap()
need_root(tap)
PY = "/usr/bin/python3.11"
GC = "python:gc__start=count(arg0)"
TICK = "execfix:tick"
FIX = os.path.join(FIXTURE_DIR, "execfix")
FIX2 = os.path.join(FIXTURE_DIR, "execfix2")
FIXS = os.path.join(FIXTURE_DIR, "execfix_static")

GC_SCRIPT = """\
import gc, os
gc.disable()
gc.collect()
gc.collect()
os._exit(0)
"""


def write(path, text, mode=0o755):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def traced(args):
    """trace --json args until the command ends; the Trace, finished."""
    tr = Trace(args)
    tr.finish(sig=None)
    return tr


def gen2(tr):
    fin = tr.final()
    agg = fin and agg_of(fin, GC)
    return agg and rows_by_key(agg).get((2,))


def exec_lines(tr):
    return [l.strip() for l in tr.err if "exec'd" in l]


with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    gc_py = write(os.path.join(tmp, "gc2.py"), GC_SCRIPT, 0o644)

    # -- (a) a /bin/sh script that execs python ---------------------------
    run_sh = write(os.path.join(tmp, "run.sh"),
                   "#!/bin/sh\nexec %s %s\n" % (PY, gc_py))
    tr = traced(["-e", GC, "--", run_sh])
    tap.eq(tr.rc, 0, "#!/bin/sh script: exit 0", tr.stderr)
    tap.eq(gen2(tr), 2, "#!/bin/sh script that execs python3.11: "
           "gc.collect() counted exactly twice", tr.stderr + tr.stdout)
    lines = exec_lines(tr)
    tap.ok(len(lines) == 1 and lines[0].endswith(
        "exec'd %s: attached 1 probe" % os.path.realpath(PY)),
        "the exec to python3.11 is said once, with its probe", tr.stderr)

    # -- (b) a python script run directly ----------------------------------
    script = write(os.path.join(tmp, "gc2s.py"),
                   "#!%s\n%s" % (PY, GC_SCRIPT))
    tr = traced(["-e", GC, "--", script])
    tap.ok((tr.attached or "").startswith("probetop: attached 1 probes to "),
           "#!python3.11 script: attached to python's probe before it runs",
           tr.stderr)
    tap.eq(gen2(tr), 2, "#!/usr/bin/python3.11 script: exact count",
           tr.stderr + tr.stdout)
    tap.eq(exec_lines(tr), [], "its own exec is not said", tr.stderr)

    # nested: a script whose interpreter is that script, from another cwd
    wrap = write(os.path.join(tmp, "wrap"), "#!%s\n" % script)
    tr = traced(["-e", GC, "--", wrap])
    tap.eq(gen2(tr), 2, "a script as a script's interpreter: exact count",
           tr.stderr)

    # relative interpreter: from the current directory, as the kernel
    sub = os.path.join(tmp, "sub")
    os.mkdir(sub)
    rel = write(os.path.join(sub, "rel.sh"), "#!gc2s.py\n")
    here = os.getcwd()
    os.chdir(tmp)
    try:
        tr = traced(["-e", GC, "--", rel])
        tap.eq(gen2(tr), 2, "relative interpreter path, from the cwd",
               tr.stderr)
    finally:
        os.chdir(here)
    r = run(["trace", "-e", GC, "--", rel], cwd=sub)
    tap.ok(r.returncode != 0 and r.stderr.strip() ==
           "probetop: %s: bad interpreter gc2s.py: No such file or directory"
           % rel, "relative interpreter path: not from the script's "
           "directory", r.stderr)

    # -- (c) exec of another binary, and of itself -------------------------
    for nxt, what in ((FIX2, "its twin"), (FIX, "itself"),
                      (FIXS, "a static twin")):
        tr = traced(["-e", TICK, "--", FIX, "fire:3", "exec:" + nxt,
                     "fire:5"])
        fin = tr.final()
        tap.eq(fin and rows_by_key(agg_of(fin, TICK)), {(): 8},
               "fires 3, execs %s, fires 5: counted 8" % what,
               tr.stderr + tr.stdout)
        tap.eq(exec_lines(tr), ["probetop: %d exec'd %s: attached 1 probe"
                                % (fin["pid"] if fin else 0,
                                   os.path.realpath(nxt))],
               "the exec of %s is said" % what, tr.stderr)

    # static, then dynamic: the dynamic linker's hold is made at the exec,
    # so a library's probe is counted from its first event
    sdt = os.path.join(FIXTURE_DIR, "sdt_target")
    tr = traced(["-e", "fixlib:call", "--", FIXS, "fire:1", "exec:" + sdt,
                 "fire", "2"])
    fin = tr.final()
    tap.eq(fin and rows_by_key(agg_of(fin, "fixlib:call")), {(): 2},
           "a static command execs a dynamic one: its library's probe "
           "counted 2", tr.stderr + tr.stdout)

    # -- -p of a process that execs: found by the rescan, and said ---------
    t = Target([FIX, "wait", "fire:2", "exec:" + FIX2, "wait", "fire:5",
                "wait"])
    tr = Trace(["-p", str(t.pid), "-i", "30", "-e", TICK])
    line = t.send("go")
    tap.ok(line.startswith("ready"), "-p: the process exec'd", line)
    said = trace_wait_err(tr, "exec'd", timeout=10)
    tap.eq(said, "probetop: %d exec'd %s: attached 1 probe"
           % (t.pid, os.path.realpath(FIX2)), "-p: the exec is said", said)
    t.send("fire")
    tr.finish()
    t.stop()
    fin = tr.final()
    tap.eq(fin and rows_by_key(agg_of(fin, TICK)), {(): 7},
           "-p: 2 before the exec, 5 after", tr.stderr + tr.stdout)

    # -- (d) bad scripts: one line, exit non-zero ---------------------------
    missing = write(os.path.join(tmp, "missing.sh"),
                    "#!/nonexistent/python\nprint(1)\n")
    a = os.path.join(tmp, "a.sh")
    b = os.path.join(tmp, "b.sh")
    write(a, "#!%s\n" % b)
    write(b, "#!%s\n" % a)
    noexec = write(os.path.join(tmp, "noexec.sh"), "#!%s\n" % gc_py)
    for path, want, what in (
            (missing, "%s: bad interpreter /nonexistent/python: No such "
             "file or directory" % missing, "interpreter missing"),
            (a, "%s: too many levels of #! interpreters" % a, "a #! loop"),
            (noexec, "%s: bad interpreter %s: not an executable file"
             % (noexec, gc_py), "interpreter not executable")):
        r = run(["trace", "-e", GC, "--", path])
        lines = r.stderr.splitlines()
        tap.ok(r.returncode != 0 and len(lines) == 1 and
               lines[0].startswith("probetop: " + want),
               "%s: one line, exit non-zero" % what,
               "rc %d\n%s" % (r.returncode, r.stderr))

# a command trace launched ends with trace: -n 1 stops it while it runs
r = run(["trace", "-n", "1", "-i", "0.3", "-e",
         "fn:libc.so.6:clock_nanosleep", "--", "/bin/sleep", "60"])
said = [l for l in r.stderr.splitlines() if "attached" in l]
pid = int(said[0].split()[-1]) if said else 0
tap.ok(r.returncode == 0 and pid and not os.path.exists("/proc/%d" % pid),
       "trace -n 1 -- sleep 60: trace stopped after one interval and the "
       "command it started is gone (not left running)", r.stderr)

# the start runs at a lower priority (session.c's start_quietly()): the
# command it launches runs at probetop's own, and probetop is back at
# its own once attached (started here at nice 3)
r = run(["trace", "--json", "-e", GC, "--", PY, "-c",
         "import os; print('nice', os.nice(0))"],
        preexec_fn=lambda: os.nice(3))
tap.ok(r.returncode == 0 and "nice 3" in r.stdout.splitlines(),
       "a launched command runs at probetop's priority (nice 3), not the "
       "start's", r.stdout[-300:] + r.stderr)
t = Target([FIX, "wait"])
tr = Trace(["-p", str(t.pid), "-e", TICK], preexec_fn=lambda: os.nice(3))
with open("/proc/%d/stat" % tr.p.pid) as f:
    nice = int(f.read().rsplit(")", 1)[1].split()[16])
tr.finish()
t.stop()
tap.eq(nice, 3, "attached: probetop is back at its own priority (nice 3)")
tap.done()

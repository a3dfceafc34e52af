# SPDX-License-Identifier: MIT
"""Every key named from a process's memory names a process that exits
at once (issue 31): its names are taken while it lives, by the kernel
at first sight (bpf/pyframe.bpf.h's py_name(), bpf/stack.bpf.h's
mappings on nmaps), not read from a process that is gone.

- Python, on each CPython 3.8 to 3.13 pyenv has and Debian's 3.11,
  with --budget off: a script that writes 400 times in writer_a() and
  400 in writer_b() and exits, launched (`trace -- python io.py`) and
  by -p (it waits for a line, writes, exits): fn:libc.so.6:write keyed
  by pystack (<module>;writer_a 400, <module>;writer_b 400), by pyframe
  (each function, its file, its first line) and by pyline (the line of
  its write), exactly, no "?"; its names are a function named in
  Latin-1 and CJK and a path longer than a key holds (its end kept), as
  from a process that lives; and a script that writes 100 times, then
  exec()s a second one that writes 70 times and exits: each program's
  frames by its own names (the keys of the first named after the exec);
- native, the stacks fixture (three call paths, 300, 200 and 100
  times), which exits at the end of its input, its stacks named after
  it is gone: launched, and by -b (the binary; a process the tracer
  never read the maps of), main;run;path_a;mid;leaf ... exactly, every
  frame from main on named."""

import os
import re
import signal
import tempfile
import time

from tap import FIXTURE_DIR, Tap, Target, Trace, agg_of, need_root

tap = Tap()
need_root(tap)

SCRIPT = """\
import os, sys
fd = os.open("/dev/null", os.O_WRONLY)
def writer_a(n):
    for i in range(n):
        os.write(fd, b"a")
def writer_b(n):
    for i in range(n):
        os.write(fd, b"b")
def naïve_関数():
    for i in range(5):
        os.write(fd, b"c")
if len(sys.argv) > 1:
    sys.stdin.readline()
writer_a(400)
writer_b(400)
naïve_関数()
"""
LINE = {name: i + 1 for i, l in enumerate(SCRIPT.splitlines())
        for name in re.findall(r"^def (\w+)\(", l)}
STACK = "fn:libc.so.6:write=count(pystack)"
FRAME = "fn:libc.so.6:write=count(pyframe)"
PLINE = "fn:libc.so.6:write=count(pyline)"
FIRST = """\
import os, sys
fd = os.open("/dev/null", os.O_WRONLY)
def first_program():
    for i in range(100):
        os.write(fd, b"a")
first_program()
os.execv(sys.executable, [sys.executable, sys.argv[1]])
"""
SECOND = """\
import os
fd = os.open("/dev/null", os.O_WRONLY)
def second_program():
    for i in range(70):
        os.write(fd, b"b")
second_program()
"""
EXE = os.path.join(FIXTURE_DIR, "stacks")
USTACK = "stk:leaf=count(ustack)"
PATHS = {("main", "run", "path_a", "mid", "leaf"): 300,
         ("main", "run", "path_b", "mid", "leaf"): 200,
         ("main", "run", "path_c", "leaf"): 100}


def pythons():
    """(label, path) of pyenv's CPython 3.8 to 3.13 and Debian's 3.11."""
    out = []
    root = "/root/.pyenv/versions"
    for v in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        m = re.match(r"3\.(\d+)\.\d+$", v)
        if m and 8 <= int(m.group(1)) <= 13:
            out.append((v, os.path.join(root, v, "bin",
                                        "python3." + m.group(1))))
    out.append(("debian 3.11", "/usr/bin/python3.11"))
    return out


def rows(obj, spec):
    """{key: total} of spec's rows, a stack (an array of frames in JSON)
    as its folded text ("root;...;leaf")."""
    a = agg_of(obj, spec) if obj else None
    return {tuple(";".join(k) if isinstance(k, list) else k
                  for k in r["key"]): r["total"]
            for r in a["rows"]} if a else {}


def check_python(label, how, tr, short):
    fin = tr.final()
    uni = "naïve_関数"
    tap.eq(rows(fin, STACK),
           {("<module>;writer_a",): 400, ("<module>;writer_b",): 400,
            ("<module>;" + uni,): 5},
           "%s, %s: pystack of a process gone at once: every path "
           "named, exactly" % (label, how), tr.stdout[-3000:])
    tap.eq(rows(fin, FRAME),
           {("writer_a", short, LINE["writer_a"]): 400,
            ("writer_b", short, LINE["writer_b"]): 400,
            (uni, short, LINE[uni]): 5},
           "%s, %s: pyframe: function, file (its end), first line, "
           "exactly" % (label, how))
    tap.eq(rows(fin, PLINE),
           {("writer_a", short, LINE["writer_a"] + 2): 400,
            ("writer_b", short, LINE["writer_b"] + 2): 400,
            (uni, short, LINE[uni] + 2): 5},
           "%s, %s: pyline: the line of each write, exactly"
           % (label, how))
    tap.eq(sum(agg_of(fin, s)["drops"] for s in (STACK, FRAME, PLINE))
           if fin else None, 0, "%s, %s: nothing dropped" % (label, how))


def launched(label, py, script, short):
    tr = Trace(["--budget", "off", "-i", "60", "-e", STACK, "-e", FRAME,
                "-e", PLINE, "--", py, script])
    tr.finish(sig=None)
    check_python(label, "launched", tr, short)


def execs(label, py, first, second):
    tr = Trace(["--budget", "off", "-i", "60", "-e", STACK, "-e", PLINE,
                "--", py, first, second])
    tr.finish(sig=None)
    fin = tr.final()
    tap.eq((rows(fin, STACK), rows(fin, PLINE)),
           ({("<module>;first_program",): 100,
             ("<module>;second_program",): 70},
            {("first_program", first, 5): 100,
             ("second_program", second, 5): 70}),
           "%s: a program and the one it exec()s, each by its own "
           "names, exactly" % label, tr.stdout[-3000:])


def by_pid(label, py, script, short):
    t = Target([py, script, "wait"], ready=False)
    tr = Trace(["--budget", "off", "-i", "60", "-p", str(t.pid), "-e",
                STACK, "-e", FRAME, "-e", PLINE])
    t.p.stdin.write("go\n")
    t.p.stdin.flush()
    t.p.wait(timeout=30)
    tr.finish(sig=None)  # ends with its target
    check_python(label, "-p", tr, short)


def from_main(frames):
    i = frames.index("main") if "main" in frames else 0
    return tuple(frames[i:])


def native_rows(agg):
    got = {}
    for r in agg["rows"] if agg else []:
        path = from_main(r["key"][0])
        got[path] = got.get(path, 0) + r["total"]
    return got


with tempfile.TemporaryDirectory() as tmp:
    deep = os.path.join(tmp, "a-directory-name-long-enough-to-be-cut-" * 2)
    os.makedirs(deep)
    script = os.path.join(deep, "io.py")
    with open(script, "w") as f:
        f.write(SCRIPT)
    short = "..." + script[-(63 - 3):]
    first, second = os.path.join(tmp, "a.py"), os.path.join(tmp, "b.py")
    with open(first, "w") as f:
        f.write(FIRST)
    with open(second, "w") as f:
        f.write(SECOND)
    found = pythons()
    tap.ok(len(found) >= 7, "every CPython 3.8 to 3.13 found, and "
           "Debian's 3.11", found)
    for label, py in found:
        launched(label, py, script, short)
        by_pid(label, py, script, short)
        execs(label, py, first, second)

    # native: the fixture reads "300 200 100" and exits at its end
    feed = os.path.join(tmp, "feed")
    with open(feed, "w") as f:
        f.write("300 200 100\n")

    def stdin_feed():
        fd = os.open(feed, os.O_RDONLY)
        os.dup2(fd, 0)
        os.close(fd)

    tr = Trace(["--budget", "off", "-i", "60", "-e", USTACK, "--", EXE],
               preexec_fn=stdin_feed)
    tr.finish(sig=None)
    a = agg_of(tr.final(), USTACK) if tr.final() else None
    tap.eq(native_rows(a), PATHS, "ustack, launched, exited: three "
           "paths named, exactly", tr.stdout[-3000:])

    tr = Trace(["-b", EXE, "--budget", "off", "-i", "60", "-e", USTACK])
    t = Target([EXE], ready=False)
    t.p.stdin.write("300 200 100\n")
    t.p.stdin.close()
    t.p.wait(timeout=30)
    time.sleep(0.3)
    tr.finish(signal.SIGINT)
    a = agg_of(tr.final(), USTACK) if tr.final() else None
    got = native_rows(a)
    tap.eq(got, PATHS, "ustack, -b, a process gone before its stacks were "
           "named: three paths, exactly", a and a["rows"])
    tap.eq(sorted({r["pid"] for r in a["rows"]}) if a else None,
           [t.pid], "-b: the rows are the gone process's")

tap.done()

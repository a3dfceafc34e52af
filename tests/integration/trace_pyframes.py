# SPDX-License-Identifier: MIT
"""pyframe and pystack keys, and profile:HZ, on every CPython 3.8 to 3.13
pyenv has here and Debian's /usr/bin/python3.11 (with USDT probes or
without, static or with libpython3.X.so), by -p:

- fn:libc.so.6:getpid=count(pyframe) and =count(pystack): a function
  that calls os.getpid() exactly N times is counted exactly N, named by
  its name, file and first line, and by its stack, root first;
- the same for functions named in Latin-1 (naïve) and in CJK (関数), so
  names of one and two bytes a character come out as UTF-8;
- a script whose path is longer than a key holds: the path's end kept
  behind "...";
- 30 functions exec'd, called (f_i calls os.getpid() i + 1 times) and
  freed one after another, so that a code object's address is taken
  again by the next: each row named as its own function, exactly, by
  pyframe, pystack and pyline;
- fn:libc.so.6:getpid=count(pyline): those calls on the line of
  os.getpid(), exactly, and two calls on one line (two bytecode offsets)
  as one row; profile:99=count(pyline): spin's loop lines;
- profile:99=count(pyframe) on a loop that spends 3/4 of its time in
  heavy() and 1/4 in light(), under one spin(): every sample in spin,
  99 a second of the CPU time the process had (within 35%: the machine
  may be shared); =count(pystack): the two paths 3:1 (within 30%);
- the pysample probeset's GC specs: the collector's function for each
  version (gc_collect_main, collect, collect.constprop.1), picked among
  the alternatives by what the interpreter has: collections by
  generation (an int: (int32)argN) and objects collected, exactly, the
  collections the interpreter started itself among them (3.13 passes
  them as generation -1);
- CPython 3.7 is refused in one sentence naming it, and a spec without
  Python keys still counts exactly."""

import os
import re
import tempfile
import time

from tap import Tap, Target, Trace, agg_of, cpu_s, need_root

tap = Tap()
need_root(tap)

WORKLOAD = """\
import gc, os, sys, time
gc.disable()  # collections only when asked: counted exactly
def spin(t):
    end = time.perf_counter() + t
    while time.perf_counter() < end:
        pass
def heavy():
    spin(0.03)
def light():
    spin(0.01)
def caller(n):
    for i in range(n):
        os.getpid()
def twice(n):
    for i in range(n):
        os.getpid(); os.getpid()
def naïve(n):
    caller(n)
def 関数(n):
    caller(n)
def run(cmd, n):
    if cmd == "calls":
        caller(n)
    elif cmd == "twice":
        twice(n)
    elif cmd == "latin":
        naïve(n)
    elif cmd == "cjk":
        関数(n)
    elif cmd == "gc":
        for g in (0, 1, 2):
            for k in range(n * (g + 1)):
                for m in range(3):
                    a = []
                    a.append(a)
                del a
                gc.collect(g)
    elif cmd == "reuse":  # code objects freed, their addresses taken again
        for i in range(n):
            ns = {}
            exec("def f_%d(os):\\n    for k in range(%d):\\n"
                 "        os.getpid()\\n" % (i, i + 1), {}, ns)
            ns["f_%d" % i](os)
            del ns  # no cycle (its globals are another dict): freed now
        gc.collect()  # anything else left: not the gc command's objects
    elif cmd == "auto":  # n collections the interpreter starts itself
        seen, freed = [], [0]
        def note(phase, info):
            if phase == "start":
                seen.append(info["generation"])
            else:
                freed[0] += info["collected"] + info["uncollectable"]
        gc.callbacks.append(note)
        gc.enable()
        while len(seen) < n:
            a = []
            a.append(a)
            del a
        gc.disable()
        gc.callbacks.remove(note)
        print("auto", freed[0], " ".join(str(g) for g in seen),
              flush=True)
    elif cmd == "spin":
        end = time.time() + n
        while time.time() < end:
            heavy()
            light()
print("ready", flush=True)
for line in sys.stdin:
    cmd, n = line.split()
    run(cmd, int(n))
    print("done", flush=True)
"""
LINE = {name: i + 1 for i, l in enumerate(WORKLOAD.splitlines())
        for name in re.findall(r"^def (\w+)\(", l)}
FRAME = "fn:libc.so.6:getpid=count(pyframe)"
AUTO = 20  # automatic collections
LINEK = "fn:libc.so.6:getpid=count(pyline)"
PLINE = "profile:99=count(pyline)"
STACK = "fn:libc.so.6:getpid=count(pystack)"
PFRAME = "profile:99=count(pyframe)"
PSTACK = "profile:99=count(pystack)"
N = 1234
REUSE = 30


def pythons():
    """(label, path) of every CPython to try: pyenv's 3.8..3.13 and
    Debian's 3.11."""
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
    a = agg_of(obj, spec)
    return {tuple(";".join(k) if isinstance(k, list) else k
                  for k in r["key"]): r["total"]
            for r in a["rows"]} if a else {}


def check_gc(label, fin, auto, freed):
    """pysample's gc role on 5, 10, 15 collections of generations 0, 1,
    2, each of 3 cycles, and the automatic ones (auto: each one's
    generation, as gc.callbacks said: 3.13 passes the collector -1,
    GENERATION_AUTO, and picks the generation inside; freed: what they
    found unreachable, as the callbacks said): by the collector's
    function for that version, its generation an int; none on a stripped
    interpreter (Debian's: its USDT probes serve the python probeset's GC
    pane instead)."""
    pause = [a for a in fin["aggs"] if a["spec"].startswith("fn:") and
             (a["spec"].endswith("=latency((int32)arg0)") or
              a["spec"].endswith("=latency((int32)arg1)"))]
    coll = [a for a in fin["aggs"] if "%return=sum(arg0)" in a["spec"]]
    if label.startswith("debian"):
        tap.eq((pause, coll), ([], []), "%s: stripped: no collector "
               "function, no GC spec attached" % label)
        return
    got = {r["key"][0]: r["total"] for r in pause[0]["rows"]} \
        if len(pause) == 1 else pause
    want = {0: 5, 1: 10, 2: 15}
    for g in auto:
        g = -1 if label.startswith("3.13.") else g
        want[g] = want.get(g, 0) + 1
    tap.eq(got, want, "%s: GC pauses by generation, exactly, without "
           "USDT (%s), %d automatic among them" % (label, pause[0]["spec"]
                                                   if len(pause) == 1
                                                   else pause, len(auto)))
    tap.eq(coll[0]["rows"][0]["sum_total"] if len(coll) == 1 else coll,
           3 * 30 + freed, "%s: the objects collected, exactly" % label)


def check(label, py, script, short):
    t = Target([py, script])
    # --budget off: the counts are checked exactly (getpid begins with an
    # instruction the kernel single-steps, so a default budget samples it)
    tr = Trace(["-p", str(t.pid), "-i", "60", "--budget", "off",
                "-e", FRAME, "-e", STACK,
                "-e", PFRAME, "-e", PSTACK, "-e", LINEK, "-e", PLINE])
    for cmd, n in (("calls", N), ("latin", 7), ("cjk", 5), ("twice", 50),
                   ("reuse", REUSE)):
        tap.eq(t.send("%s %d" % (cmd, n)).strip(), "done",
               "%s: %s ran" % (label, cmd))
    was = cpu_s(t.pid)
    tap.eq(t.send("spin 2").strip(), "done", "%s: spin ran" % label)
    spent = cpu_s(t.pid) - was
    time.sleep(0.3)
    tr.finish()
    gc = Trace(["-p", str(t.pid), "-i", "60", "-P", "pysample"])
    tap.eq(t.send("gc 5").strip(), "done", "%s: gc ran" % label)
    auto = t.send("auto %d" % AUTO).split()
    tap.eq((auto[:1], t.p.stdout.readline().strip()), (["auto"], "done"),
           "%s: automatic collections ran" % label)
    time.sleep(0.3)
    gc.finish()
    t.stop()
    check_gc(label, gc.final(), [int(g) for g in auto[2:]], int(auto[1]))
    fin = tr.final()
    f, s = rows(fin, FRAME), rows(fin, STACK)
    tap.eq((f.get(("caller", short, LINE["caller"])),
            s.get(("<module>;run;caller",)),
            s.get(("<module>;run;naïve;caller",)),
            s.get(("<module>;run;関数;caller",))),
           (N + 7 + 5, N, 7, 5),
           "%s: os.getpid() counted exactly by the frame that called it "
           "(name, file, first line) and by stack, UTF-8 names" % label,
           (f, s))
    tap.eq(({k: v for k, v in f.items() if k[0].startswith("f_")},
            {k: v for k, v in s.items() if ";f_" in k[0]}),
           ({("f_%d" % i, "<string>", 1): i + 1 for i in range(REUSE)},
            {("<module>;run;f_%d" % i,): i + 1 for i in range(REUSE)}),
           "%s: %d functions exec'd and freed one after another (their "
           "code objects' addresses taken again): each named as itself, "
           "its calls exact" % (label, REUSE))
    ln = rows(fin, LINEK)
    want = {("f_%d" % i, "<string>", 3): i + 1 for i in range(REUSE)}
    want.update({("caller", short, LINE["caller"] + 2): N + 7 + 5,
                 ("twice", short, LINE["twice"] + 2): 100})
    tap.eq(ln, want,
           "%s: pyline: the getpid() calls on caller's line %d, "
           "twice()'s two calls on one line as one row, and each exec'd "
           "function's on its line 3, exactly"
           % (label, LINE["caller"] + 2), ln)
    pl = rows(fin, PLINE)
    inloop = sum(n for (f, _, line), n in pl.items()
                 if f == "spin" and line in (LINE["spin"] + 2,
                                             LINE["spin"] + 3))
    tap.ok(inloop >= 0.9 * sum(pl.values()) and
           inloop >= 0.65 * 99 * spent,
           "%s: pyline samples on spin's loop lines" % label, pl)
    pf, ps = rows(fin, PFRAME), rows(fin, PSTACK)
    spin = pf.get(("spin", short, LINE["spin"]), 0)
    # in spin: 95% of the samples (the script's own code between its
    # spins takes a few, as many as the clock's random phases give)
    tap.ok(spent > 0.5 and 0.65 <= spin / (99 * spent) <= 1.35 and
           sum(pf.values()) - spin <= max(5, 0.05 * sum(pf.values())),
           "%s: profile:99: 99 samples a CPU second (%.2f s: %d), in spin"
           % (label, spent, spin), pf)
    hv = ps.get(("<module>;run;heavy;spin",), 0)
    lt = ps.get(("<module>;run;light;spin",), 0)
    tap.ok(lt and 2.1 <= hv / lt <= 3.9,
           "%s: the two paths sampled 3:1 (%d:%d)" % (label, hv, lt), ps)
    drops = agg_of(fin, FRAME)["drops"] + agg_of(fin, STACK)["drops"]
    tap.eq(drops, 0, "%s: nothing dropped by the exact specs" % label)


with tempfile.TemporaryDirectory() as tmp:
    deep = os.path.join(tmp, "a-directory-name-long-enough-to-be-cut-" * 2)
    os.makedirs(deep)
    script = os.path.join(deep, "work.py")
    with open(script, "w") as f:
        f.write(WORKLOAD)
    short = "..." + script[-(63 - 3):]
    found = pythons()
    tap.ok(len(found) >= 7, "every CPython 3.8 to 3.13 found, and "
           "Debian's 3.11", found)
    for label, py in found:
        check(label, py, script, short)

    old = "/root/.pyenv/versions/3.7.16/bin/python3.7"
    if os.path.exists(old):
        t = Target([old, script])
        tr = Trace(["-p", str(t.pid), "-i", "60", "-e", FRAME, "-e",
                    "fn:libc.so.6:getpid"])
        t.send("calls 9")
        time.sleep(0.2)
        tr.finish()
        t.stop()
        said = [l for l in tr.stderr.splitlines() if "3.7" in l]
        tap.ok(len(said) == 1 and "CPython 3.7" in said[0] and
               "3.8 to 3.14" in said[0],
               "3.7: one sentence naming it and what is read", tr.stderr)
        tap.eq(sum(rows(tr.final(), "fn:libc.so.6:getpid").values()), 9,
               "3.7: a spec without Python keys still exact")

tap.done()

# SPDX-License-Identifier: MIT
"""ustack through code without frame pointers (issue 34), on the unwind
fixture (-O2 -fomit-frame-pointer): one probe (unw:hit) reached by three
known call paths, one of them from a qsort() callback, through libc:

- unw:hit=count(ustack): exactly three stacks, each with the count the
  fixture fired it (path c: the comparisons its callback counted), every
  frame from main named, root first: main;run;path_a;deep;hit,
  main;run;path_b;hit, main;run;path_c;<libc's qsort frames>;by_value;hit,
  the libc frames named qsort_r;msort_with_tmp... (libc6-dbg's
  symbols, found by build ID); the same frames
  above main for all three, from _start;
- fn:hit=count(ustack) (a function's first instruction) the same;
- with PROBETOP_UNWIND=fp (frame pointers only, bpf_get_stack() as
  before) the same trace does not find those paths: what the tables do;
- profile:99=count(ustack) while the fixture spins in churn(): every
  sample's stack reaches main through spin; with frame pointers only,
  fewer than half do;
- JSON "unwind": the tables' objects, rows and bytes, in total and for
  the process (one process: the same), bounded by capacity_bytes; the
  same as the kernel holds (uobjs: one entry per object, their rows
  summed) while the trace runs; with --aggsize 1m
  libc's rows do not fit: said once, counted, its frames walked by frame
  pointer, the fixture's own paths still exact;
- -b: every process of the binary, its stacks walked by the tables of
  the file and of the libraries it needs, loaded before it ran."""

import json
import os
import re
import subprocess
import time

from tap import FIXTURE_DIR, Tap, Target, Trace, agg_of, need_root, own_maps

tap = Tap()
need_root(tap)

EXE = os.path.join(FIXTURE_DIR, "unwind")
USTACK = "unw:hit=count(ustack)"
FN = "fn:hit=count(ustack)"
PROFILE = "profile:99=count(ustack)"
# libc's frames of qsort, named by libc6-dbg's debug file (scripts/setup
# installs it; find/debugfile.h): qsort_r, msort_with_tmp.part.0
LIBC_FRAME = re.compile(r"^(qsort|msort)[\w.]*$")


def from_main(frames):
    """The frames from main on, and the ones before it."""
    i = frames.index("main") if "main" in frames else len(frames)
    return tuple(frames[i:]), tuple(frames[:i])


def path_of(frames):
    """A stack from main as the fixture's path: 'a', 'b', 'c' (its libc
    frames between path_c and by_value, all libc's), or None."""
    if frames == ("main", "run", "path_a", "deep", "hit"):
        return "a"
    if frames == ("main", "run", "path_b", "hit"):
        return "b"
    if (len(frames) > 5 and frames[:3] == ("main", "run", "path_c") and
            frames[-2:] == ("by_value", "hit") and
            all(LIBC_FRAME.match(f) for f in frames[3:-2])):
        return "c"
    return None


def fire(spec, env=None, extra=()):
    """Fire 300 times by path a, 200 by b, and sort 150 pairs (path c);
    the final aggregation of spec, the comparisons counted, the trace."""
    t = Target([EXE])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", spec] + list(extra),
               env=env)
    tr.target = t.pid
    ans = t.send("300 200 150").split()
    time.sleep(0.3)
    tr.finish()
    t.stop()
    tap.eq(ans[:3], ["fired", "300", "200"], "the fixture fired")
    return agg_of(tr.final(), spec), int(ans[3]), tr


for spec in (USTACK, FN):
    a, compared, tr = fire(spec)
    u = tr.final().get("unwind", {})
    tap.ok(u.get("objects", 0) >= 4 and u.get("rows", 0) >= 28000 and
           u.get("bytes") == 8 * u.get("rows", 0) and u.get("full") == 0,
           "%s: JSON unwind: the tables of the fixture, libc, ld.so and "
           "the vDSO, none left out" % spec, u)
    procs = u.get("procs", [])
    tap.ok(len(procs) == 1 and procs[0].get("pid") == tr.target and
           procs[0].get("bytes", 0) > 0 and
           procs[0].get("bytes") == 8 * procs[0].get("rows", 0) and
           (procs[0].get("objects"), procs[0].get("bytes")) ==
           (u.get("objects"), u.get("bytes")),
           "%s: JSON unwind.procs: the process's tables, all of the "
           "total's (one process)" % spec, u)
    tap.ok(u.get("capacity_bytes") == 8 * u.get("capacity", 0) and
           0 < u.get("bytes", 0) <= u.get("capacity_bytes", 0),
           "%s: the tables bounded by capacity_bytes" % spec, u)
    tap.ok(compared >= 150, "%s: qsort compared each pair (%d)" %
           (spec, compared))
    got, outer, paths = {}, set(), {}
    for r in a["rows"]:
        path, out = from_main(r["key"][0])
        got[path_of(path)] = got.get(path_of(path), 0) + r["total"]
        outer.add(out)
        paths[path_of(path)] = path
    tap.eq(got, {"a": 300, "b": 200, "c": compared},
           "%s: the three paths, exact, every frame from main named, "
           "through libc's qsort" % spec, a["rows"])
    tap.eq(len(a["rows"]), 3, "%s: one row per path" % spec, a["rows"])
    tap.ok(len(outer) == 1 and next(iter(outer))[:1] == ("_start",),
           "%s: the same frames above main, from _start" % spec, outer)
    tap.eq(a["drops"], 0, "%s: nothing dropped" % spec)
    if "c" in paths:
        tap.ok(any(f.startswith("qsort") for f in paths["c"]),
               "%s: path c named qsort in libc: %s" %
               (spec, ";".join(paths["c"])))


def kernel_tables(pid):
    """(objects, rows) in the uobjs map of probetop pid: what it loaded."""
    uobjs = own_maps(pid).get("uobjs")
    out = subprocess.run(["bpftool", "map", "dump", "id", str(uobjs), "-j"],
                         capture_output=True, text=True).stdout
    objs = rows = 0
    for e in json.loads(out or "[]"):
        v = e.get("formatted", {}).get("value")
        if v is None:  # bytes: first, count (u32 each, little-endian)
            b = [int(x, 16) for x in e["value"]]
            v = {"count": int.from_bytes(bytes(b[4:8]), "little")}
        objs += 1
        rows += v["count"]
    return objs, rows


# the numbers are what the kernel holds: uobjs read while the trace runs
t = Target([EXE])
tr = Trace(["-p", str(t.pid), "-i", "1", "-e", USTACK])
t.send("3 2 1")
end = time.time() + 10
while time.time() < end and sum(l.startswith("{") for l in tr.out) < 2:
    time.sleep(0.1)
kobjs, krows = kernel_tables(tr.p.pid)
tr.finish()
t.stop()
u = [o for o in tr.objs if "interval" in o][-1].get("unwind", {})
tap.ok(krows > 0 and (u.get("objects"), u.get("rows")) == (kobjs, krows) and
       sum(p["bytes"] for p in u.get("procs", [])) == u.get("bytes") ==
       8 * krows,
       "JSON unwind: the objects and rows the kernel holds (uobjs: %d "
       "objects, %d rows), the process's bytes summed == bytes" %
       (kobjs, krows), u)

# frame pointers only: the same probe loses its way in the first frame
env = dict(os.environ, PROBETOP_UNWIND="fp")
a, compared, tr = fire(USTACK, env)
tap.ok("unwind" not in tr.final(), "PROBETOP_UNWIND=fp: no tables")
fp = {}
for r in a["rows"]:
    p = path_of(from_main(r["key"][0])[0])
    fp[p] = fp.get(p, 0) + r["total"]
tap.ok(fp.get("a", 0) + fp.get("b", 0) + fp.get("c", 0) == 0,
       "PROBETOP_UNWIND=fp: no path found by frame pointers", a["rows"])
tap.eq(sum(fp.values()), 500 + compared,
       "PROBETOP_UNWIND=fp: every hit counted all the same")


# a table that does not fit (--aggsize 1m: some 6,000 rows, libc has
# 28,000): said once, counted, its frames walked by frame pointer; the
# fixture's own frames still by its table
a, compared, tr = fire(USTACK, extra=["--aggsize", "1m"])
u = tr.final().get("unwind", {})
said = [l for l in tr.stderr.splitlines() if "unwind tables full" in l]
tap.ok(u.get("full", 0) >= 1 and len(said) == 1,
       "--aggsize 1m: the tables full, said once and counted", tr.stderr)
tap.ok(0 < u.get("bytes", 0) <= u.get("capacity_bytes", 0) < 1 << 20 and
       u["procs"][0]["bytes"] == u["bytes"],
       "--aggsize 1m: the tables within their bound (%s of %s bytes), "
       "the process's the same" % (u.get("bytes"), u.get("capacity_bytes")),
       u)
got = {}
for r in a["rows"]:
    p = path_of(from_main(r["key"][0])[0])
    got[p] = got.get(p, 0) + r["total"]
tap.eq((got.get("a"), got.get("b"), sum(got.values())),
       (300, 200, 500 + compared),
       "--aggsize 1m: paths a and b still exact from main, every hit "
       "counted", a["rows"])


def lazy(frames):
    """Whether a stack is in the dynamic linker's lazy binding of a
    function's first call (_dl_runtime_resolve_xsavec realigns the stack
    and keeps its frame by %rbx, a rule the unwinder does not follow: a
    sample there stops at it; the man page says so)."""
    return any(f.startswith("_dl_runtime_resolve") or f == "_dl_fixup"
               for f in frames)


def spin(env=None):
    """profile:99=count(ustack) over 2 s of spinning: (samples whose stack
    goes main;spin, all samples, the rows, samples in lazy binding)."""
    t = Target([EXE])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", PROFILE], env=env)
    tap.eq(t.send("spin 2").strip(), "spun", "the fixture spun 2 s")
    time.sleep(0.2)
    tr.finish()
    t.stop()
    p = agg_of(tr.final(), PROFILE)
    ok = sum(r["total"] for r in p["rows"]
             if from_main(r["key"][0])[0][:2] == ("main", "spin"))
    ld = sum(r["total"] for r in p["rows"] if lazy(r["key"][0]))
    return ok, sum(r["total"] for r in p["rows"]), p["rows"], ld


# a sample in the lazy binding of spin's first call of a libc function
# (1 in 195 in CI42) stops there; every other one reaches main
ok, total, rows, ld = spin()
tap.ok(150 <= total <= 220 and ok + ld == total and ld <= 2,
       "profile:99: every one of the ~198 samples reaches main through spin "
       "(%d of %d), but one in the dynamic linker's lazy binding (%d)"
       % (ok, total, ld), rows)
ok, total, rows, _ = spin(env)
tap.ok(total >= 150 and ok < total / 2,
       "profile:99 by frame pointers only: fewer than half reach main "
       "(%d of %d)" % (ok, total), rows)

# -b: the file's and its libraries' tables, for every process
t = Target([EXE])
tr = Trace(["-b", EXE, "-i", "60", "--folded", "-e", USTACK],
           json_out=False)
ans = t.send("3 2 1").split()
time.sleep(0.3)
tr.finish()
t.stop()
final = tr.stdout.split("# final")[-1].splitlines()[2:]
got = {}
for line in final:
    stack, n = line.rsplit(" ", 1)
    frames = stack.split(";")
    got[path_of(from_main(frames)[0])] = int(n)
    tap.eq(frames[0], "pid %d" % t.pid, "-b: the pid first: " + line)
tap.eq(got, {"a": 3, "b": 2, "c": int(ans[3])},
       "-b --folded: the three paths, exact", tr.stdout)

tap.done()

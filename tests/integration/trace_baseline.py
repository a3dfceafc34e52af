# SPDX-License-Identifier: MIT
"""trace --baseline OLD (issue 37) on the C fixture, which fires its
probes an exact number of times: run A is recorded; run B, with A as its
baseline, fires other counts; in --json each row's rate, baseline_rate,
delta and ratio are those of the known counts over the recorded
seconds (A's from its recording, B's from its own elapsed_s), keys A
never counted are "new", and run C, with B as its baseline, lists B's
keys it did not count as "gone"; the text output has the VS BASELINE
column; a missing, foreign or corrupt OLD is one line, exit 2, before
anything is attached; a cut one is read up to the cut, said once."""

import json
import os
import tempfile
import time

from tap import FIXTURE_DIR, Tap, Target, Trace, agg_of, need_root, run

tap = Tap()
need_root(tap)
EXE = os.path.join(FIXTURE_DIR, "sdt_target")
TMP = tempfile.mkdtemp(prefix="trace_baseline.")
TICK = "fixture:tick"
KEYED = "fixture:ints=count(arg1)"  # arg1 = i: keys 0..N-1 of "fire N"
SPECS = [TICK, KEYED]


def close(a, b):
    return a is not None and abs(a - b) <= 1e-9 * max(1.0, abs(b))


def traced(extra, fires, json_out=True):
    """A run firing each count of fires in an interval of its own."""
    t = Target([EXE])
    args = ["-p", str(t.pid), "-i", "0.4"] + extra
    for s in SPECS:
        args += ["-e", s]
    tr = Trace(args + (["--json"] if json_out else []), json_out=False)
    for n in fires:
        seen = len(tr.out)
        t.send("fire %d" % n)
        end = time.time() + 20
        while len(tr.out) < seen + 1 and time.time() < end:
            time.sleep(0.05)
    time.sleep(0.5)
    tr.finish()
    t.stop()
    return tr


def rows(obj, spec):
    return {tuple(r["key"]): r for r in agg_of(obj, spec)["rows"]}


# -- A recorded, B against it -------------------------------------------------
old = os.path.join(TMP, "a.ptr")
a = traced(["--record", old], [30])
fa = a.final()
sec_a = fa["elapsed_s"]
tap.eq(a.rc, 0, "run A recorded", a.stderr)

new = os.path.join(TMP, "b.ptr")
b = traced(["--baseline", old, "--record", new], [60, 20])
tap.eq(b.rc, 0, "run B with --baseline: exit 0", b.stderr)
tap.ok("baseline %s: 1 intervals" % old in b.stderr or
       ("baseline %s:" % old) in b.stderr, "stderr says what the baseline is",
       b.stderr)
fb = b.final()
sec_b = fb["elapsed_s"]
tap.ok(fb.get("baseline") and close(fb["baseline"]["seconds"], sec_a),
       "final: the baseline's seconds are A's recorded length", fb.get("baseline"))
tick = rows(fb, TICK)[()]
want = (80 / sec_b, 30 / sec_a)
tap.ok(close(tick["rate"], want[0]) and close(tick["baseline_rate"], want[1]),
       "tick: rate 80/%.3f, baseline 30/%.3f" % (sec_b, sec_a), tick)
tap.ok(close(tick["delta"], want[0] - want[1]), "tick: delta exact", tick)
tap.ok(close(tick["ratio"], want[0] / want[1]), "tick: ratio exact", tick)
kr = rows(fb, KEYED)
tap.eq(sorted(k[0] for k in kr), list(range(60)), "keyed: keys 0..59")
ok = all(close(kr[(k,)]["delta"], (2 if k < 20 else 1) / sec_b - 1 / sec_a)
         and close(kr[(k,)]["ratio"], (2 if k < 20 else 1) / sec_b /
                   (1 / sec_a)) for k in range(30))
tap.ok(ok, "keys 0..29: delta and ratio of 2 or 1 now against 1 then",
       [kr[(k,)] for k in (0, 25)])
tap.eq(sorted(k[0] for k, r in kr.items() if r.get("new")), list(range(30, 60)),
       "keys 30..59 are new")
tap.ok(all(kr[(k,)]["ratio"] is None and kr[(k,)]["baseline_rate"] == 0
           for k in range(30, 60)), "a new key: baseline_rate 0, ratio null")
tap.eq(agg_of(fb, KEYED)["gone"], [], "nothing of A is gone in B")
lines = [json.loads(l) for l in b.stdout.splitlines() if l.startswith("{")]
prev, ok, seen = 0.0, True, 0
for o in lines[:-1]:
    span = o["elapsed_s"] - prev
    prev = o["elapsed_s"]
    for r in agg_of(o, TICK)["rows"]:
        seen += 1
        ok = ok and close(r["rate"], r["count"] / span) and \
            close(r["delta"], r["count"] / span - 30 / sec_a)
tap.ok(ok and seen == 2, "intervals: each rate over its own seconds", lines)

# -- replay B --baseline A: the live run's comparison again --------------------
r = run(["replay", new, "--json", "--baseline", old])
rl = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
rt = rows(rl[-1], TICK)[()] if rl else {}
tap.ok(r.returncode == 0 and rl and rl[-1].get("final") and
       all(close(rt.get(f), tick[f]) for f in
           ("rate", "baseline_rate", "delta", "ratio")),
       "replay B --json --baseline A: the final tick row's rate, baseline "
       "rate, delta and ratio as B printed them live", (r.stderr, rt, tick))
rk = rows(rl[-1], KEYED) if rl else {}
tap.eq(sorted(k[0] for k, v in rk.items() if v.get("new")),
       list(range(30, 60)), "replay --baseline: keys 30..59 new again")

# -- C against B: gone keys ---------------------------------------------------
c = traced(["--baseline", new], [10])
fc = c.final()
gone = agg_of(fc, KEYED)["gone"]
tap.eq(sorted(g["key"][0] for g in gone), list(range(10, 60)),
       "run C: B's keys 10..59 are gone")
sec_bb = fc["baseline"]["seconds"]
tap.ok(close(sec_bb, sec_b), "B's recording is as long as B ran", fc["baseline"])
g0 = [g for g in gone if g["key"] == [15]]
tap.ok(g0 and g0[0]["baseline_total"] == 2 and
       close(g0[0]["baseline_rate"], 2 / sec_b), "a gone key keeps its old rate",
       g0)
tap.eq([g["key"][0] for g in gone[:10]], list(range(10, 20)),
       "gone: highest old rate first")

# -- text --------------------------------------------------------------------
t = traced(["--baseline", old], [30], json_out=False)
tap.ok("VS BASELINE" in t.stdout and " x" in t.stdout and "/s" in t.stdout,
       "text: a VS BASELINE column", t.stdout)

# -- bad baselines ------------------------------------------------------------
def bad(path, what):
    r = run(["trace", "--baseline", path, "-e", TICK, "--", EXE, "fire", "1"])
    tap.ok(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and
           r.stderr.startswith("probetop: --baseline %s: " % path) and
           "attached" not in r.stderr, what + ": one line, exit 2", r.stderr)


bad(os.path.join(TMP, "none.ptr"), "a missing baseline")
bad("/bin/sh", "not a recording")
with open(old, "rb") as f:
    data = bytearray(f.read())
corrupt = os.path.join(TMP, "corrupt.ptr")
flip = bytearray(data)
flip[60] ^= 0x40
with open(corrupt, "wb") as f:
    f.write(flip)
bad(corrupt, "a corrupt baseline")
cut = os.path.join(TMP, "cut.ptr")
with open(new, "rb") as f:
    data = f.read()
with open(cut, "wb") as f:
    f.write(data[:len(data) - 7])
c = traced(["--baseline", cut], [10])
said = [l for l in c.stderr.splitlines() if "cut" in l]
tap.ok(c.rc == 0 and len(said) == 1 and "read up to interval" in said[0],
       "a cut baseline: used, said once", c.stderr)
tap.done()

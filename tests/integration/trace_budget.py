# SPDX-License-Identifier: MIT
"""The budget (engine/collect/budget.h) under probetop trace -P python --json, on
Debian's /usr/bin/python3.11 by -p: a call-heavy script (a function of
some 10 us, 100,000 calls a second) is sampled under the default budget
of 5%: its spec has "estimated": true (and on its rows) and a duty below
1, and its estimated calls come within 10% of the true count; the
collections beside it stay exact and unestimated. --budget off counts
every call exactly. A burst (a function called 1,000 times a second,
then as fast as it can) is cut within the interval it starts in: the
intervals before it are exact, and in the one it starts in the spec's
duty is below 1. The sampled windows begin at random in their slots
(PROBETOP_DEBUG's window leads). A sampled histogram's buckets add up
to its count.
While a spec is parked its USDT semaphore is back at zero (sampled from
the target's memory), and with --budget off it stays raised. --budget
rejects what is not a percentage."""

import json
import os
import re
import struct
import tempfile
import time

from tap import FIXTURE_DIR, Tap, Target, Trace, agg_of, dear, guess_of, \
    need_root, price_err, run

tap = Tap()
need_root(tap)
PY = "/usr/bin/python3.11"
CALLS = "python:function__return=count(str(arg1),str(arg0),pyfirstline)"
LINES = "python:function__return=quantize(arg2)"  # a histogram, sampled
GC = "python:gc__start..python:gc__done=latency(arg0)"
COLLECTED = "python:gc__done=sum(arg0)"

WORKLOAD = """\
import gc, sys, time
def work(x):
    for j in range(500):
        x += j
    return x
def tick(x):
    return x + 1
print("ready", flush=True)
for line in sys.stdin:
    cmd, n = line.split()
    n = int(n)
    if cmd == "work":
        s = 0
        for i in range(n):
            s = work(s)
    elif cmd == "gc":
        for i in range(n):
            gc.collect()
    elif cmd == "slow":  # n calls of tick, 1,000 a second
        t0 = time.monotonic()
        for i in range(n):
            tick(i)
            time.sleep(max(0, t0 + (i + 1) / 1000 - time.monotonic()))
    elif cmd == "burst":  # n calls of tick, as fast as it goes
        for i in range(n):
            tick(i)
    print("done", flush=True)
"""


def calls(obj, fn, final=False):
    """(calls of fn, its aggregation) in one trace --json object."""
    a = agg_of(obj, CALLS)
    for r in a["rows"]:
        if r["key"][0] == fn:
            return (r["total"] if final else r["count"]), a
    return 0, a


def collections(obj):
    """(full collections timed, every collection summed) and the two
    aggregations, of the final object."""
    a, b = agg_of(obj, GC), agg_of(obj, COLLECTED)
    return (sum(r["total"] for r in a["rows"] if r["key"] == [2]),
            sum(r["total"] for r in b["rows"])), a, b


with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "budget.py")
    with open(script, "w") as f:
        f.write(WORKLOAD)

    # -- the default budget: sampled, estimated within 10% ---------------
    N = 600000  # some 6 s of work
    t = Target([PY, script])
    tr = Trace(["-p", str(t.pid), "-P", "python", "-e", LINES, "-i", "0.5"],
               env=dict(os.environ, PROBETOP_DEBUG="1"))
    t.send("gc 5")
    t.send("work %d" % N)
    t.send("gc 5")
    time.sleep(0.6)
    tr.finish()
    t.stop()
    fin = tr.final()
    est, a = calls(fin, "work", final=True)
    tap.ok(a.get("estimated") is True and 0 < a.get("duty", 1) < 1,
           "default budget: the call-heavy spec is sampled (estimated, "
           "duty below 1)", {k: a.get(k) for k in ("estimated", "duty")})
    work = [r for r in a["rows"] if r["key"][0] == "work"]
    # where a trap is dear (its price known to 50%: a hit of 4-5 us, some
    # half of the target's CPU time in the windows), the promise is a
    # bound's estimate within its error (docs/testing.md)
    loose = dear(tr.err)
    guess = guess_of(work[0]) if len(work) == 1 else None
    if not loose:
        tap.ok(len(work) == 1 and work[0].get("estimated") is True and
               "lower_bound" not in work[0],
               "default budget: the work row says estimated", work)
    else:
        tap.ok(guess is not None and guess[1] <= 1,
               "default budget, prices known to %.0f%%: the work row an "
               "estimate, or a bound with its estimate" %
               (100 * price_err(tr.err)), work)
    tap.ok(all(not (r.get("estimated") and r.get("lower_bound"))
               for r in a["rows"]),
           "default budget: no row both estimated and a lower bound")
    if not loose:
        tap.ok(abs(est - N) <= 0.1 * N,
               "default budget: estimated calls within 10%% of %d" % N, est)
    else:
        tap.ok(guess is not None and
               abs(guess[0] - N) <= guess[1] * guess[0] + 1,
               "default budget, prices known to %.0f%%: the estimated "
               "calls within their error of %d" % (100 * price_err(tr.err),
                                                    N), guess)
    sampled = [o for o in tr.objs if "interval" in o and
               agg_of(o, CALLS).get("estimated")]
    tap.ok(len(sampled) >= 3 and
           all(agg_of(o, CALLS)["duty"] < 1 for o in sampled),
           "default budget: duty below 1 in the intervals it was sampled",
           [agg_of(o, CALLS).get("duty") for o in tr.objs])
    # the sampled windows begin at random in their slots (window_lead()),
    # not at each slot's start in step with the intervals: of the slots
    # with 10 ms free (8 of them in 3 s), some begin past a fifth of it
    # and some before four fifths (all on one side or the other by
    # chance: 1 in 5 million, of 10); an interval's first slot has none
    leads = [tuple(map(float, m.groups())) for m in
             (re.search(r"budget: a slot of [\d.]+ ms: its windows after "
                        r"([\d.]+) ms of ([\d.]+) ms free", l)
              for l in tr.err) if m]
    spread = [lead / free for lead, free in leads if free >= 10]
    tap.ok(len(spread) >= 10 and min(spread) < 0.8 and max(spread) > 0.2,
           "default budget: the sampled windows begin at random in their "
           "slots", ["%.2f" % x for x in spread][:40])
    n, g, c = collections(fin)
    tap.eq((n, g.get("estimated"), c.get("estimated")), ((10, 10), None,
                                                         None),
           "default budget: the 10 collections, timed and counted exactly, "
           "not estimated")
    tap.eq(fin.get("budget_pct"), 5, "default budget: 5% of one CPU")
    bad = []
    for o in tr.objs:
        h = agg_of(o, LINES)
        for r in h["rows"] if h.get("estimated") else []:
            if sum(n for _, n in r["buckets"]) != r["count"]:
                bad.append((o.get("interval"), r["count"], r["buckets"]))
    hist = agg_of(fin, LINES)
    tap.ok(hist.get("estimated") is True and not bad,
           "default budget: a sampled histogram's buckets add up to its "
           "count, every interval and the final", bad[:3])

    # -- --budget off: exact ---------------------------------------------
    t = Target([PY, script])
    tr = Trace(["-p", str(t.pid), "-P", "python", "-i", "0.5", "--budget",
                "off"])
    N_OFF = 300000  # every call trapped: some 5 s where a trap is dear
    t.send("work %d" % N_OFF)
    time.sleep(0.6)
    tr.finish()
    t.stop()
    fin = tr.final()
    n, a = calls(fin, "work", final=True)
    tap.eq((n, a.get("estimated"), fin.get("budget_pct")),
           (N_OFF, None, None),
           "--budget off: exactly %d calls, no estimate, no budget" % N_OFF)

    # -- a burst is cut in the interval it starts in ---------------------
    t = Target([PY, script])
    tr = Trace(["-p", str(t.pid), "-P", "python", "-i", "1"])
    t.send("slow 2500")  # 2.5 s at 1,000 a second: 0.2% of a CPU
    seen = len(tr.out)
    end = time.time() + 5
    while len(tr.out) == seen and time.time() < end:
        time.sleep(0.005)  # the next interval begins
    t.p.stdin.write("burst 100000000\n")  # 100x and more, for seconds
    t.p.stdin.flush()
    seen = len(tr.out)
    end = time.time() + 10
    while len(tr.out) < seen + 2 and time.time() < end:
        time.sleep(0.01)  # the interval it started in, and the next
    tr.finish()
    t.stop()
    ivs = [o for o in tr.objs if "interval" in o]
    first = next((i for i, o in enumerate(ivs)
                  if calls(o, "tick")[0] > 5000), None)
    tap.ok(first is not None and first >= 2,
           "burst: intervals before it, then the burst",
           [calls(o, "tick")[0] for o in ivs])
    if first is not None:
        before = ivs[:first]
        tap.ok(all(not agg_of(o, CALLS).get("estimated") for o in before) and
               sum(calls(o, "tick")[0] for o in before) <= 2500 and
               sum(calls(o, "tick")[0] for o in before) >= 1500,
               "burst: the slow calls before it counted exactly, 1,000 a "
               "second", [(calls(o, "tick")[0],
                           agg_of(o, CALLS).get("estimated"))
                          for o in before])
        a = agg_of(ivs[first], CALLS)
        tap.ok(a.get("estimated") is True and a.get("duty", 1) < 0.3,
               "burst: cut within the interval it started in (attached "
               "under 30% of it)", {k: a.get(k) for k in ("estimated",
                                                         "duty")})

    # -- parked: the semaphore back at zero -------------------------------
    def semaphore(pid):
        """The address of fixture:sem's semaphore in process pid."""
        r = run(["list", "-p", str(pid), "--json", "fixture:sem"])
        probe = json.loads(r.stdout)[0]
        off = int(probe["locations"][0]["semaphore_offset"], 16)
        with open("/proc/%d/maps" % pid) as f:
            for line in f:
                part = line.split()
                lo, hi = (int(x, 16) for x in part[0].split("-"))
                foff = int(part[2], 16)
                if (len(part) > 5 and part[5] == probe["object"] and
                        foff <= off < foff + hi - lo):
                    return lo + off - foff
        return None

    def sample(pid, addr, secs):
        """The semaphore's values, read every ms for secs."""
        vals = []
        with open("/proc/%d/mem" % pid, "rb", buffering=0) as mem:
            end = time.time() + secs
            while time.time() < end:
                mem.seek(addr)
                vals.append(struct.unpack("<H", mem.read(2))[0])
                time.sleep(0.001)
        return vals

    EXE = os.path.join(FIXTURE_DIR, "sdt_target")
    for budget, what in ((None, "default budget"), ("off", "--budget off")):
        t = Target([EXE])
        addr = semaphore(t.pid)
        tr = Trace(["-p", str(t.pid), "-i", "0.5", "-e", "fixture:sem"] +
                   (["--budget", budget] if budget else []))
        t.p.stdin.write("fire 1000000000\n")  # for longer than we look
        t.p.stdin.flush()
        time.sleep(0.5)
        vals = sample(t.pid, addr, 1.5) if addr else []
        tr.finish()
        t.stop()
        zeros = sum(v == 0 for v in vals) / max(len(vals), 1)
        est = agg_of(tr.final(), "fixture:sem").get("estimated")
        if budget is None:
            tap.ok(vals and zeros > 0.5 and max(vals) >= 1 and est,
                   "%s: parked, fixture:sem's semaphore is 0 (%.0f%% of "
                   "the time), raised in its windows; estimated"
                   % (what, 100 * zeros), (addr, vals[:20], est))
        else:
            tap.ok(vals and min(vals) >= 1 and not est,
                   "%s: the semaphore stays raised, counts exact" % what,
                   (addr, sorted(set(vals)), est))

    # -- bad budgets ---------------------------------------------------
    for bad in ("0", "-5", "abc", "5x", "100000"):
        r = run(["trace", "--budget", bad, "-e", "fixture:tick", "-p", "1"])
        tap.ok(r.returncode == 2 and r.stderr.count("\n") == 1 and
               "--budget" in r.stderr,
               "--budget %s: one line, usage error" % bad, r.stderr)

tap.done()

# SPDX-License-Identifier: MIT
"""The cost meter under probetop trace --json (engine/collect/cost.h): every
object, the intervals and the final one, has "overhead" (cpu_pct,
target_pct, self_pct); in the interval the fixture fires, cost_pct is
above 0 exactly for the specs that fired, 0 for the one that did not,
and in proportion to their hits (a latency pair nested three deep is six
hits a round, a count one); cpu_pct is the specs' cost_pct plus the
kernel programs' (kernel_pct); an idle interval costs the specs 0."""

import os
import time

from tap import FIXTURE_DIR, Tap, Target, Trace, agg_of, need_root

tap = Tap()
need_root(tap)
EXE = os.path.join(FIXTURE_DIR, "sdt_target")
N = 20000
SPECS = {
    "tick": "fixture:tick",
    "nest": "fixture:enter..fixture:leave=latency()",
    "idle": "fn:main%return",
}

t = Target([EXE])
args = []
for s in SPECS.values():
    args += ["-e", s]
# --budget off: the cost is checked against exact counts (a budget would
# sample the fixture's burst and make its counts estimates)
tr = Trace(["-p", str(t.pid), "-i", "0.5", "--budget", "off"] + args)
time.sleep(0.7)
tap.eq(t.send("fire %d" % N).strip(), "fired %d" % N, "fixture fired")
time.sleep(1.6)  # the firing interval, then idle ones
objs = tr.finish()
t.stop()
tap.ok(len(objs) >= 3, "intervals and the final object", tr.stderr)
tap.ok(all("overhead" in o and {"cpu_pct", "target_pct", "self_pct"} <=
           set(o["overhead"]) for o in objs),
       "overhead on every object", objs[:1])
tap.ok(all("cost_pct" in a for o in objs for a in o["aggs"]),
       "cost_pct on every aggregation")


def close(a, b, what, eps):
    tap.ok(abs(a - b) <= eps, what, "%r vs %r" % (a, b))


fired = [o for o in objs if "interval" in o and o["events"] > 0]
tap.ok(fired, "an interval with the fixture's events", [o["events"] for o in objs])
for o in fired:
    A = {k: agg_of(o, s) for k, s in SPECS.items()}
    n = sum(r["count"] for r in A["tick"]["rows"])
    pairs = sum(r["count"] for r in A["nest"]["rows"])
    tap.ok(A["tick"]["cost_pct"] > 0 and A["nest"]["cost_pct"] > 0,
           "interval %d: the specs that fired cost > 0" % o["interval"])
    tap.eq(A["idle"]["cost_pct"], 0, "interval %d: the silent spec costs 0"
           % o["interval"])
    # one price per hit: cost in proportion to hits (pairs are two)
    close(A["nest"]["cost_pct"] * n, A["tick"]["cost_pct"] * 2 * pairs,
          "interval %d: cost in proportion to hits" % o["interval"],
          2e-4 * max(n, pairs) * 2)
    ov = o["overhead"]
    close(ov["cpu_pct"], sum(a["cost_pct"] for a in o["aggs"]) +
          ov["kernel_pct"], "interval %d: cpu_pct = specs + kernel"
          % o["interval"], 5e-4)
    tap.ok(ov["target_pct"] is not None and ov["target_pct"] > 0,
           "interval %d: a share of the target's CPU" % o["interval"], ov)

idle = [o for o in objs if "interval" in o and o["events"] == 0 and
        o["interval"] > fired[-1]["interval"]] if fired else []
tap.ok(idle, "an idle interval after the firing")
for o in idle:
    tap.ok(all(a["cost_pct"] == 0 for a in o["aggs"]),
           "idle interval %d: every spec costs 0" % o["interval"])
    close(o["overhead"]["cpu_pct"], o["overhead"]["kernel_pct"],
          "idle interval %d: only the kernel programs" % o["interval"], 1e-4)

fin = objs[-1]
tap.ok(fin.get("final") and fin["overhead"]["cpu_pct"] > 0,
       "final: the overhead since attach", fin.get("overhead"))
tap.ok(agg_of(fin, SPECS["tick"])["cost_pct"] > 0 and
       agg_of(fin, SPECS["idle"])["cost_pct"] == 0,
       "final: cost_pct since attach")
tap.done()

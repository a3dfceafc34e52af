# SPDX-License-Identifier: MIT
"""The cost meter under probetop trace --json (engine/collect/cost.h): every
object, the intervals and the final one, has "overhead" (cpu_pct,
target_pct, self_pct); in the interval the fixture fires, cost_pct is
above 0 exactly for the specs that fired, 0 for the one that did not,
and in proportion to their hits (a latency pair nested three deep is six
hits a round, a count one); cpu_pct is the specs' cost_pct plus the
kernel programs' (kernel_pct); an idle interval costs the specs 0.
Then, with the kernel's BPF statistics on: each program's runs in the
JSON are its spec's hits exactly, and a spec is priced at its own
program's run time (a ustack key's walker against a count's pt_usdt)."""

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
tap.ok(all(0 < o["overhead"]["stats_s"] <= 0.5 for o in objs[:-1]),
       "the statistics' window of every interval in it",
       [o["overhead"]["stats_s"] for o in objs])


# -- each spec priced at its own program ------------------------------------
# With kernel.bpf_stats_enabled on, the kernel times every run: the meter
# reads the whole interval (no window) and the programs' runs are each
# spec's hits exactly. A count runs pt_usdt, a ustack key pt_walk_native,
# on different probes of the same kind (nops: one trap price): a hit of
# the second costs more than one of the first by what its program takes
# more a run, as the JSON's program list says.
PLAIN = "fixture:tick"  # N hits a round
WALKED = "fixture:enter=count(ustack)"  # 3N
STATS = "/proc/sys/kernel/bpf_stats_enabled"


def priced_session():
    t = Target([EXE])
    tr = Trace(["-p", str(t.pid), "-i", "1", "--budget", "off",
                "-e", PLAIN, "-e", WALKED])
    # the burst of 80,000 hits just after an interval's start, so that it
    # ends in that interval where a hit costs 4.5 to 10 us (0.5 s of
    # them: one fired 0.3 s after the start took two intervals there)
    deadline = time.monotonic() + 10
    while not any('"interval"' in line for line in list(tr.out)) and \
            time.monotonic() < deadline:
        time.sleep(0.005)
    t.send("fire %d" % N)
    time.sleep(2.2)
    objs = tr.finish()
    t.stop()
    return objs


with open(STATS) as f:
    was = f.read().strip()
try:
    with open(STATS, "w") as f:
        f.write("1")
    objs = priced_session()
finally:
    with open(STATS, "w") as f:
        f.write(was)


def progs(o):
    return {p["name"]: p for p in o["overhead"]["programs"]}


ivs = [o for o in objs if "interval" in o]
secs = {id(o): o["elapsed_s"] - (ivs[i - 1]["elapsed_s"] if i else 0)
        for i, o in enumerate(ivs)}  # elapsed_s: since the start
tap.ok(all(abs(o["overhead"]["stats_s"] - secs[id(o)]) < 0.05
           for o in ivs), "statistics on: they cover every interval whole",
       [(o["overhead"]["stats_s"], secs[id(o)]) for o in ivs])
runs_ok = []
for o in objs:
    P, hits = progs(o), {s: sum(r["count"] for r in agg_of(o, s)["rows"])
                         for s in (PLAIN, WALKED)}
    runs_ok.append((o.get("interval", "final"), hits[PLAIN],
                    P.get("pt_usdt", {}).get("runs"), hits[WALKED],
                    P.get("pt_walk_native", {}).get("runs")))
tap.ok(all(a == b and c == d for _, a, b, c, d in runs_ok) and
       runs_ok[-1][1] == N and runs_ok[-1][3] == 3 * N,
       "each program ran once a hit of its spec, every interval and in "
       "all (%d and %d)" % (N, 3 * N), runs_ok)
hot = max(ivs, key=lambda o: o["events"])
P = progs(hot)
tap.ok(hot["events"] == 4 * N and all(
    P[p]["runs"] == 0 for p in ("pt_usdt", "pt_walk_native")
    for o in ivs if o is not hot for P in [progs(o)]),
    "the fixture fired in one interval", [o["events"] for o in ivs])
P = progs(hot)


def per_hit(spec, hits):
    return agg_of(hot, spec)["cost_pct"] / 100 * secs[id(hot)] * 1e9 / hits


more = per_hit(WALKED, 3 * N) - per_hit(PLAIN, N)
runs = {p: P[p]["ns"] / P[p]["runs"] for p in ("pt_usdt", "pt_walk_native")}
tap.ok(runs["pt_walk_native"] > runs["pt_usdt"] and
       abs(more - (runs["pt_walk_native"] - runs["pt_usdt"])) < 2,
       "a walked hit costs more than a plain one by what its program "
       "takes more a run",
       "%.1f ns more a hit (%.1f, %.1f); programs %r ns a run" % (
           more, per_hit(WALKED, 3 * N), per_hit(PLAIN, N), runs))
tap.done()

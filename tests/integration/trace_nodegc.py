# SPDX-License-Identifier: MIT
"""Node's collections without probes (Debian's Node 20, by -p, the
nodesample probeset): its GC pane's pause spec (V8's
Heap::PerformGarbageCollection from entry to return, keyed by its
collector: 0 a scavenge, 1 a mark-compact) counts exactly the
collections node's own PerformanceObserver saw of each kind (minor,
major) while a workload allocated and dropped arrays in rounds; and
the pauses are real times (each at least 10 us, each collector's in all
within 10% of what node's own gc entries timed)."""

import json

from tap import Tap, Target, Trace, agg_of, need_root

tap = Tap()
need_root(tap)

SCRIPT = """\
const { PerformanceObserver, constants } = require('perf_hooks');
const seen = { minor: 0, major: 0, minor_ms: 0, major_ms: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const k = e.detail ? e.detail.kind : e.kind;
    if (k === constants.NODE_PERFORMANCE_GC_MINOR) {
      seen.minor++;
      seen.minor_ms += e.duration;
    }
    if (k === constants.NODE_PERFORMANCE_GC_MAJOR) {
      seen.major++;
      seen.major_ms += e.duration;
    }
  }
}).observe({ entryTypes: ['gc'] });
const rl = require('readline').createInterface({ input: process.stdin });
console.log('ready');
rl.on('line', (line) => {
  const rounds = Number(line.split(' ')[1]);
  for (let r = 0; r < rounds; r++) {
    let keep = [];
    for (let i = 0; i < 1500; i++) {
      const a = [];
      for (let j = 0; j < 1000; j++) a.push({ x: j });
      keep.push(a);
    }
    keep = null;
  }
  setTimeout(() => console.log(JSON.stringify(seen)), 500);
});
"""
PAUSE = ("fn:_ZN2v88internal4Heap24PerformGarbageCollectionENS0_16Garbage"
         "CollectorENS0_23GarbageCollectionReasonEPKc=latency((int32)arg1)")

path = "/tmp/trace_nodegc.js"
with open(path, "w") as f:
    f.write(SCRIPT)
t = Target(["node", path])
tr = Trace(["-p", str(t.pid), "-P", "nodesample", "--budget", "off",
            "-i", "60"])
before = json.loads(t.send("gc 0"))
after = json.loads(t.send("gc 6"))
tr.finish()
t.stop()
want = {0: after["minor"] - before["minor"], 1: after["major"] - before["major"]}
a = agg_of(tr.final(), PAUSE)
rows = {r["key"][0]: r for r in a["rows"]} if a else {}
tap.ok(want[0] > 0 and want[1] > 0, "the workload collected both ways "
       "(node saw %d minor, %d major)" % (want[0], want[1]), (before, after))
tap.eq({k: r["total"] for k, r in rows.items()}, want,
       "nodesample's GC pause: each collector's collections, as node's "
       "own gc entries counted them (0 scavenges, 1 mark-compacts)",
       tr.stderr[-2000:])
# node's own gc entries time each collection from V8's prologue to its
# epilogue, around PerformGarbageCollection: 476.7 ms of scavenges
# against node's 480.9 and 129.5 of mark-compacts against 129.8 here
# (some 100 us a collection outside the function: 10% allows for a
# machine where collections are quicker)
own = {0: after["minor_ms"] - before["minor_ms"],
       1: after["major_ms"] - before["major_ms"]}
got = {k: r["sum"] / 1e6 for k, r in rows.items()}
tap.ok(all(r["min"] >= 10000 for r in rows.values()) and
       set(got) == {0, 1} and
       all(abs(got[k] - own[k]) <= 0.1 * own[k] for k in own),
       "pauses are real times: each 10 us or more, each collector's in all "
       "within 10% of node's own gc entries' durations",
       "probetop %s ms, node %s ms" % (got, own))
tap.done()

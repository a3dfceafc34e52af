# SPDX-License-Identifier: MIT
"""Latency pairs fired from many short-lived threads (issue 21): 9,000
threads one after another, each firing thr:start(i % 3) then thr:done
once, pair exactly, however many more threads than the (thread, spec)
map holds; a thread that dies with a start open leaves nothing in the
map; an end without its start (fired before any start, or whose start
came before probetop attached) is counted as unmatched, never as a pair.
Keyed specs keep their starts in the stacks hash map, a keyless one on
one process in the thread's own storage, and on -b (any process) in
the hash map too: all three are checked. With --budget off: the pairs'
count is the subject here, and on a faster machine 9,000 threads' pairs
can cost more than the default budget (trace_latbudget samples pairs)."""

import os
import struct
import subprocess
import time

from tap import (FIXTURE_DIR, Tap, Target, Trace, agg_of, map_keys,
                 need_root, own_maps, rows_by_key)

tap = Tap()
need_root(tap)
EXE = os.path.join(FIXTURE_DIR, "latthreads")
N = 9000
KEYED = "thr:start..thr:done=latency(arg0)"
KEYLESS = "thr:start..thr:done=latency()"
SPLIT = {(k,): N // 3 for k in range(3)}
NODROPS = {"map_full": 0, "string": 0, "depth": 0, "python": 0}


def stack_tids(tr):
    """The tids of the entries of the stacks map of probetop tr."""
    keys = map_keys(own_maps(tr.p.pid)["stacks"], 8)  # struct pt_stack_key
    return sorted(struct.unpack("<II", k)[0] for k in keys)


def wait_stacks(tr, cond, timeout=5):
    """Poll stack_tids(tr) until cond(tids) (a thread's exit may end just
    after pthread_join returns); the last tids seen."""
    end = time.time() + timeout
    while True:
        tids = stack_tids(tr)
        if cond(tids) or time.time() > end:
            return tids
        time.sleep(0.05)


def check(fin, spec, rows, unmatched, what):
    a = agg_of(fin, spec)
    tap.eq((rows_by_key(a), a["unmatched"], a["drops"], a["drops_by"]),
           (rows, unmatched, 0, NODROPS), what)


# -- on a running process: starts before attach, an orphan, 9,000 threads --
t = Target([EXE])
held = int(t.send("hold").split()[1])  # thr:start(5), before probetop
tr = Trace(["-p", str(t.pid), "-i", "60", "--budget", "off", "-e", KEYED,
            "-e", KEYLESS])
tap.eq(t.send("end").strip(), "ended", "an end before any start")
tap.eq(t.send("release").strip(), "released",
       "the end of a start fired before probetop attached")
orphan = int(t.send("orphan").split()[1])
tids = wait_stacks(tr, lambda tids: orphan not in tids)
tap.ok(orphan not in tids, "a thread that died with a start open leaves "
       "no entry in stacks", "tid %d; entries of %s" % (orphan, tids[:20]))
tap.eq(t.send("pairs %d" % N).strip(), "pairs %d" % N, "%d threads" % N)
tids = wait_stacks(tr, lambda tids: not tids)
tap.eq((len(tids), tids[:10]), (0, []),
       "after %d threads have ended, stacks holds no entry of theirs" % N)
tr.finish()
t.send("quit")
t.stop()
fin = tr.final()
tap.eq((tr.rc, fin["drops"]), (0, 0), "-p: exit 0, no drops", tr.stderr)
check(fin, KEYED, SPLIT, 2, "-p keyed: %d pairs split %d/%d/%d, the 2 ends "
      "without their start unmatched" % ((N,) + (N // 3,) * 3))
check(fin, KEYLESS, {(): N}, 2, "-p keyless (thread storage): %d pairs, "
      "2 unmatched" % N)

# -- -- COMMAND: the report of issue 21 ---------------------------------------
tr = Trace(["--budget", "off", "-e", KEYED, "-e", KEYLESS, "--", EXE, "run",
           str(N)])
tr.finish(sig=None, timeout=120)
fin = tr.final()
tap.eq((tr.rc, fin["drops"]), (0, 0), "-- COMMAND: exit 0, no drops",
       tr.stderr)
check(fin, KEYED, SPLIT, 1, "-- COMMAND keyed: %d pairs, the end before "
      "any start unmatched" % N)
check(fin, KEYLESS, {(): N}, 1, "-- COMMAND keyless: %d pairs" % N)

# -- -b: any process, so the keyless spec uses the hash map as well ----------
tr = Trace(["-b", EXE, "-i", "60", "--budget", "off", "-e", KEYED, "-e",
            KEYLESS])
r = subprocess.run([EXE, "run", str(N)], timeout=120)
tids = wait_stacks(tr, lambda tids: not tids)
tap.eq(len(tids), 0, "-b: stacks empty once the process has ended")
tr.finish()
fin = tr.final()
tap.eq((r.returncode, tr.rc, fin["drops"]), (0, 0, 0),
       "-b: exit 0, no drops", tr.stderr)
check(fin, KEYED, SPLIT, 1, "-b keyed: %d pairs" % N)
check(fin, KEYLESS, {(): N}, 1, "-b keyless (hash map): %d pairs" % N)

tap.done()

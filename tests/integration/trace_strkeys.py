# SPDX-License-Identifier: MIT
"""String keys counted in address slots (engine/attach/rostr.h): strings in the
target's read-only code mappings are read once per address, the others
at every event, and both land in one row per string, exactly. A library
closed and another opened at the same address, holding another string,
must not be counted under the first one's string; nor must a target that
execs itself lose or misplace a count. A literal on a page the target has
never read (so not in its page tables, which a BPF program cannot fault
in) is counted, not dropped: probetop makes the target's read-only data
present when it attaches."""

import json
import os
import struct
import subprocess
import time

from tap import (FIXTURE_DIR, Tap, Target, Trace, agg_of, need_root,
                 own_maps, rows_by_key)

tap = Tap()
need_root(tap)
EXE = os.path.join(FIXTURE_DIR, "strkeys")
COUNT = "strk:key=count(str(arg0))"
SUM = "strk:key=sum(arg1, str(arg0))"
QUANT = "strk:key=quantize(arg1, str(arg0))"  # no address slots: read


def slot_strings(pid):
    """{string: count} held in the address slots (all CPUs) of probetop
    pid, from the kernel's map itself (its own, by id: not another
    probetop's): which events took the fast path."""
    out = subprocess.run(["bpftool", "map", "dump", "id",
                          str(own_maps(pid)["aslots"])],
                         capture_output=True, text=True).stdout
    got = {}
    for e in json.loads(out or "[]"):
        for v in e["values"]:
            if v["value"]["addr"]:
                s = v["value"]["str"]
                got[s] = got.get(s, 0) + v["value"]["c"]["count"]
    return got


def present(pid, addr):
    """Whether the page of addr is in pid's page tables (pagemap bit 63);
    reading pagemap does not fault it in."""
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        f.seek(addr // 4096 * 8)
        return bool(struct.unpack("<Q", f.read(8))[0] >> 63)


def sums(n, k):
    """{key: (count, sum of i)} of firing n times over k literals."""
    want = {}
    for i in range(n):
        c, s = want.get("key-%02d" % (i % k), (0, 0))
        want["key-%02d" % (i % k)] = (c + 1, s + i)
    return want


# on one CPU: slots are per CPU, and the second library's events must
# meet the slot the first one's took
t = Target(["taskset", "-c", "0", EXE])
tr = Trace(["-p", str(t.pid), "-i", "1", "-e", COUNT, "-e", SUM])
opened_a = t.send("open a").split()
time.sleep(2.5)  # an interval's rescan puts the library's range in the table
t.send("lib 7")
tap.eq(slot_strings(tr.p.pid), {"lib-a-key": 2 * 7},
       "a dlopen()ed library's literal took address slots once rescanned")
t.send("close")
opened_b = t.send("open b").split()
tap.eq((opened_b[1], opened_b[2]), (opened_a[1], "lib-b-key"),
       "the second library's literal is at the first one's address")
t.send("lib 5")  # right away: before any rescan (a stale table)
time.sleep(2.5)
t.send("lib 3")  # after one (a table of a new generation)
t.send("close")
tap.eq(slot_strings(tr.p.pid), {"lib-a-key": 2 * 7, "lib-b-key": 2 * 3},
       "the second library's literal took slots of its own")
# the dlclose made the range table stale (ro_epoch): until the next
# interval's rescan a literal is keyed by its string, not by its address
time.sleep(2.5)

tap.eq(t.send("lit 400 40").strip(), "fired 400", "literals fired")
slots = slot_strings(tr.p.pid)
tap.eq(len([k for k in slots if k.startswith("key-")]), 16 - 2, "literals of the executable took the free "
       "address slots (16 per spec and CPU), the others overflowed",
       repr(slots))
tap.eq(t.send("heap 400 40").strip(), "fired 400", "heap copies fired")
tap.eq(slot_strings(tr.p.pid), slots, "heap strings took no address slot")

tap.eq(t.send("exec").split()[0], "ready", "the target exec()ed itself")
t.send("lit 40 40")
time.sleep(2.5)
t.send("lit 40 40")
tr.finish()
t.stop()

want = sums(400, 40)
for k, (c, s) in sums(400, 40).items():
    want[k] = (2 * c + 2, 2 * s + 2 * (int(k[4:])))
want["lib-a-key"] = (7, sum(range(7)))
want["lib-b-key"] = (8, sum(range(5)) + sum(range(3)))
fin = tr.final()
tap.eq(rows_by_key(agg_of(fin, COUNT)), {(k,): c for k, (c, _) in want.items()},
       "count by string: literals, heap copies, both libraries, after exec")
tap.eq(rows_by_key(agg_of(fin, SUM), "sum"),
       {(k,): s for k, (_, s) in want.items()}, "sum by string, the same")
tap.eq((fin["drops"], tr.rc), (0, 0), "no drops, exit 0", tr.stderr)

# a literal the target has never read: -p, then a launched command
t = Target([EXE])
far = int(t.send("far").split()[1], 16)
tap.ok(not present(t.pid, far), "the far literal's page is not present "
       "before attach (else the next checks prove nothing)")
tr = Trace(["-p", str(t.pid), "-e", COUNT, "-e", QUANT])
t.send("far 5")
tr.finish()
t.stop()
fin = tr.final()
tap.eq((rows_by_key(agg_of(fin, COUNT)), rows_by_key(agg_of(fin, QUANT)),
        fin["drops"]), ({("far-key",): 5}, {("far-key",): 5}, 0),
       "-p: a literal on a page never read is counted, by address slot "
       "and by string, no drops")
tr = Trace(["-e", COUNT, "-e", QUANT, "--", EXE, "far", "6"])
tr.finish(sig=None)
fin = tr.final()
tap.eq((rows_by_key(agg_of(fin, COUNT)), rows_by_key(agg_of(fin, QUANT)),
        fin["drops"], tr.rc), ({("far-key",): 6}, {("far-key",): 6}, 0, 0),
       "--: the same from the command's first instruction", tr.stderr)
tap.done()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The console with --record FILE in a real terminal (tmux), on the
fixture fired 1234 and then 10 times, and 20 more just before q (in the
last interval, cut short by q, which no screen showed): after q,
`replay --json FILE` gives the final total the screen showed and those
20 (1,264 for fixture:tick and the string key: the last partial
interval was lost before), the intervals' counts add up to it, the file
is 0600;
the recording's probe list ('P') is the one `list -p PID --json` gives;
a second console on the same FILE refuses it before the screen, with
one line and exit 1."""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from console_tmux import PROBETOP, SESSION, keys, start, tmux, \
    wait_screen  # noqa: E402
from tap import Tap, Target, agg_of, listed_probes, need_root, \
    record_frames, record_probe_list, rows_by_key  # noqa: E402

FIX = os.environ["FIXTURE_DIR"]
TICK, STR = "fixture:tick", "fixture:str=count(str(arg0))"

tap = Tap()
need_root(tap)
tmp = tempfile.mkdtemp(prefix="console_record.")
rec = os.path.join(tmp, "console.ptr")
t = Target([os.path.join(FIX, "sdt_target")])
try:
    start("%s -p %d -e %s -e '%s' -i 0.3 --record %s" %
          (PROBETOP, t.pid, TICK, STR, rec), w=160, h=40)
    wait_screen(r"probes \(\d+ on\)")
    keys("3")
    tap.eq(t.send("fire 1234").strip(), "fired 1234", "target fired")
    s = wait_screen(r"\s1,234\s+(-\s+)?fixture:tick", 6)
    tap.ok(re.search(r"\s1,234\s+(-\s+)?fixture:tick", s) is not None,
           "Top shows 1,234", s)
    tap.eq(t.send("fire 10").strip(), "fired 10", "target fired again")
    s = wait_screen(r"\s1,244\s+(-\s+)?fixture:tick", 6)
    tap.ok(re.search(r"\s1,244\s+(-\s+)?fixture:tick", s) is not None,
           "Top's total: 1,244", s)
    tap.eq(t.send("fire 20").strip(), "fired 20", "20 more, then q")
    keys("q")
    s = wait_screen(r"EXITED \d+")
    tap.ok("EXITED 0" in s, "q: exit 0", s)
    tap.eq(os.stat(rec).st_mode & 0o777, 0o600, "the recording is 0600")
    r = subprocess.run([PROBETOP, "replay", "--json", rec],
                       capture_output=True, text=True, timeout=60)
    objs = [json.loads(l) for l in r.stdout.splitlines()]
    tap.eq(r.returncode, 0, "replay --json: exit 0", r.stderr)
    fin = [o for o in objs if o.get("final")]
    tap.eq(len(fin), 1, "a final summary, written at q", r.stdout[-2000:])
    if fin:
        tap.eq(rows_by_key(agg_of(fin[0], TICK)), {(): 1264},
               "its fixture:tick total is the screen's 1,244 and the "
               "20 fired just before q")
        tap.eq(rows_by_key(agg_of(fin[0], STR)),
               {("fixture-string",): 1264}, "and the string key's")
    per = [sum(row["count"] for row in agg_of(o, TICK)["rows"])
           for o in objs if not o.get("final")]
    tap.eq(sum(per), 1264, "the intervals' counts add up to it", per)
    lst = subprocess.run([PROBETOP, "list", "-p", str(t.pid), "--json"],
                         capture_output=True, text=True, timeout=30)
    want = listed_probes(json.loads(lst.stdout))
    plists = [record_probe_list(b) for _, ty, b in record_frames(rec)
              if ty == "P"]
    tap.ok(len(want) > 2 and plists == [want],
           "one 'P' record: the %d probes list -p gives" % len(want),
           plists)
    start("%s -p %d -e %s --record %s" % (PROBETOP, t.pid, TICK, rec))
    s = wait_screen(r"EXITED \d+")
    tap.ok("EXITED 1" in s and "--record %s: File exists" % rec in s,
           "a second console on the file: one line, exit 1", s)
finally:
    tmux("kill-session", "-t", SESSION)
    t.stop()
    subprocess.run(["rm", "-rf", tmp])
tap.done()

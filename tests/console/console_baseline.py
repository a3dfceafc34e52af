#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The console with --baseline OLD in a real terminal (tmux, 256
colours), on the fixture, which fires its probes an exact number of
times. OLD is recorded by trace: "fire 40" (the main thread) and
"thread 20" (a new thread); the console's run fires 10 and 30. Once the
rates are 0 again, Top's DELTA/s is each key's old rate negated, exactly
as the recording's counts over its seconds give it, its RATIO x0.00;
keys 30..39 of count(arg1) are listed gone with their old rate, the rows
of count(arg2), a spec OLD has not, are new; Stacks draws the main thread's path (its
share 2/3 then, 1/4 now) in the strongest blue and the new thread's (1/3
then, 3/4 now) in the strongest red, the legend on its status line. A
cut OLD is used and said once in Messages; a missing one is one line,
exit 2, before the screen."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from console_stacks import cells_bg, frame_bg  # noqa: E402
from console_tmux import PROBETOP, SESSION, keys, start, tmux, \
    wait_screen  # noqa: E402
from tap import Tap, Target, Trace, agg_of, need_root  # noqa: E402

FIX = os.environ["FIXTURE_DIR"]
EXE = os.path.join(FIX, "sdt_target")
TICK, KEYED, STACK = ("fixture:tick", "fixture:ints=count(arg1)",
                      "fixture:tick=count(ustack)")
NEW = "fixture:ints=count(arg2)"  # not in OLD: its keys are new
GROW, SHRINK = 203, 111  # HUE_GROW + 2, HUE_SHRINK + 2 (views/draw.c)


def fmt_rate(v):
    """views/draw.c's fmt_rate()."""
    if v < 10:
        return "%.0f" % v if v == int(v) else "%.1f" % v
    return "{:,}".format(int(v + 0.5))


def record(path):
    """OLD: fire 40 and thread 20 under trace --record; its seconds."""
    t = Target([EXE])
    tr = Trace(["-p", str(t.pid), "-i", "0.3", "--record", path, "-e", TICK,
                "-e", KEYED, "-e", STACK, "--json"], json_out=False)
    time.sleep(0.5)
    t.send("fire 40")
    t.send("thread 20")
    time.sleep(0.8)
    tr.finish()
    t.stop()
    return tr.final()["elapsed_s"]


def main():
    tap = Tap()
    need_root(tap)
    tmp = tempfile.mkdtemp(prefix="console_baseline.")
    old = os.path.join(tmp, "old.ptr")
    sec = record(old)
    r = subprocess.run([PROBETOP, "replay", "--json", old],
                       capture_output=True, text=True)
    fin = [json.loads(l) for l in r.stdout.splitlines()][-1]
    tap.eq(agg_of(fin, TICK)["rows"][0]["count"], 60, "OLD counted 60 ticks")
    t = Target([EXE])
    try:
        start("TERM=tmux-256color %s -p %d -e %s -e '%s' -e '%s' -e '%s' "
              "-i 0.3 --baseline %s" % (PROBETOP, t.pid, TICK, KEYED, STACK,
                                       NEW, old), w=200, h=120)
        wait_screen(r"probes \(\d+ on\)")
        t.send("fire 10")
        t.send("thread 30")
        keys("3")
        time.sleep(2)  # the rates are 0 again
        s = wait_screen(r"DELTA/s  RATIO", 5)
        tap.ok("against the baseline old.ptr, %.1f s" % sec in s,
               "Top says what the baseline is", s)
        tick = re.search(r"^│\s+0\s+40\s+(\S+)\s+(\S+)\s+-\s+"
                         r"fixture:tick\s*│", s, re.M)
        want = "-" + fmt_rate(60 / sec)
        tap.ok(tick is not None and tick.groups() == (want, "x0.00"),
               "tick: DELTA/s %s (60 over %.3f s), RATIO x0.00" % (want, sec),
               s)
        paths = {}
        for m in re.finditer(r"^│\s+0\s+(\d+)\s+(\S+)\s+(x\S+)\s+-\s+"
                             r"fixture:tick (\S+);fire\s*│", s, re.M):
            paths[m.group(4).split(";")[-1]] = m.group(1, 2, 3)
        tap.eq(paths, {"main": ("10", "-" + fmt_rate(40 / sec), "x0.00"),
                       "thread_fires": ("30", "-" + fmt_rate(20 / sec),
                                        "x0.00")},
               "ustack: each path's old rate negated", s)
        ok = True
        for k in range(30):
            now, then = (2 if k < 10 else 1), (2 if k < 20 else 1)
            m = re.search(r"^│\s+0\s+%d\s+(\S+)\s+(x\S+)\s+-\s+"
                          r"fixture:ints %d\s*│" % (now, k), s, re.M)
            ok = ok and m is not None and \
                m.groups() == ("-" + fmt_rate(then / sec), "x0.00")
        tap.ok(ok, "count(arg1): each key's old rate negated", s)
        gone = re.findall(r"-\s+-\s+(\S+)\s+gone\s+%s\s+(\d+) \(was (\S+)/s\)"
                          % re.escape(KEYED), s)
        tap.eq(sorted(int(k) for _, k, _ in gone), list(range(30, 40)),
               "keys 30..39 gone", s)
        tap.ok(all(d == "-" + fmt_rate(1 / sec) and w == fmt_rate(1 / sec)
                   for d, _, w in gone), "gone with their old rate", gone)
        news = re.findall(r"^│\s+0\s+\d+\s+new\s+-\s+fixture:ints (-?\d+)"
                          r"\s*│", s, re.M)
        tap.eq(sorted(-int(k) for k in news), list(range(30)),
               "the keys 0..-29 of count(arg2), a spec OLD has not: new", s)
        keys("7")
        s = wait_screen(r"red grew, blue shrank", 10)
        tap.ok("red grew, blue shrank against old.ptr" in s,
               "Stacks: the legend on its status line", s)
        time.sleep(0.5)
        coded = tmux("capture-pane", "-p", "-e", "-t", SESSION).stdout
        lines = cells_bg(coded)
        tap.eq((frame_bg(lines, "thread_fires"), frame_bg(lines, "main")),
               (GROW, SHRINK),
               "the new thread's path grew (red 203), main's shrank "
               "(blue 111)", coded)
        keys("q")
        wait_screen(r"EXITED \d+")
        cut = os.path.join(tmp, "cut.ptr")
        with open(old, "rb") as f:
            data = f.read()
        with open(cut, "wb") as f:
            f.write(data[:-9])
        start("%s -p %d -e %s --baseline %s" % (PROBETOP, t.pid, TICK, cut))
        wait_screen(r"probes \(\d+ on\)")
        keys("L")
        s = wait_screen(r"--baseline %s: cut" % re.escape(cut), 5)
        tap.eq(s.count("--baseline %s: cut" % cut), 1,
               "a cut OLD: said once in Messages", s)
        keys("q")
        wait_screen(r"EXITED \d+")
        start("%s -p %d -e %s --baseline %s" %
              (PROBETOP, t.pid, TICK, os.path.join(tmp, "none.ptr")))
        s = wait_screen(r"EXITED \d+")
        tap.ok("EXITED 2" in s and "--baseline %s" % os.path.join(
            tmp, "none.ptr") in s and "attached" not in s,
            "a missing OLD: one line, exit 2, nothing attached", s)
    finally:
        tmux("kill-session", "-t", SESSION)
        t.stop()
        subprocess.run(["rm", "-rf", tmp])
    tap.done()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`probetop replay FILE`, the console on a recording, in a real terminal
(tmux): trace --record of the fixture fired 1234, 10 and 77 times in
three intervals; the console opened on the file (as nobody: a replay
reads only the file) shows each interval's rows with the totals
`replay --json` gives for them, steps between intervals (. and ,),
goes to the last (End), lists every row with its total in a quiet
interval (as live does), shows a range's totals ([ ]: the sums of its
intervals' counts, computed from the JSON) and back (Esc), plays at 10x
(0) from the first to the last, and quits with q. The Probes view (2)
lists the probes `list -p PID --json` gave while recording, the two
the specs attached ON with their recorded hits/s, the others off. The
same file cut inside its last interval replays the intervals before it
and says where it ends; cut between two records (no final summary:
killed), its end is said to be missing; with a record's body
flipped, the intervals before it replay, and q says where it ends on
stderr with exit 1; a foreign file is one line and exit 1. A Python
recording's frames are named in the replayed Top as live."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from console_tmux import PROBETOP, SESSION, keys, start, tmux, \
    wait_screen  # noqa: E402
from tap import Tap, Target, agg_of, need_root, \
    record_frames  # noqa: E402

FIX = os.environ["FIXTURE_DIR"]
TICK, STR = "fixture:tick", "fixture:str=count(str(arg0))"
FIRES = (1234, 10, 77)

PYAPP = """\
import zlib
data = bytes(range(256)) * 64
def compress():
    return zlib.compress(data)
def other():
    return sum(range(2000))
print("ready", flush=True)
while True:
    compress()
    other()
"""

tap = Tap()
need_root(tap)
tmp = tempfile.mkdtemp(prefix="console_replay.")
os.chmod(tmp, 0o755)
rec = os.path.join(tmp, "run.ptr")


def py_names():
    """A Python frames recording (pyenv's python3, its default probeset
    pysample: profile:99=count(pyframe)) replayed in the console: Top
    names each frame as live and replay --json do, "compress app.py:3"
    (the string parts of a frame key were read from where a live key
    keeps them, empty in a replayed one: Top showed ":3")."""
    app = os.path.join(tmp, "app.py")
    pyrec = os.path.join(tmp, "py.ptr")
    with open(app, "w") as f:
        f.write(PYAPP)
    t = Target(["python3", app])
    try:
        r = subprocess.run([PROBETOP, "trace", "-p", str(t.pid), "-i", "1",
                            "-d", "3", "--json", "--record", pyrec],
                           capture_output=True, text=True, timeout=60)
    finally:
        t.stop()
    fin = json.loads(r.stdout.splitlines()[-1]) if r.stdout else {}
    a = agg_of(fin, "profile:99=count(pyframe)") if fin else None
    live = {tuple(row["key"]) for row in a["rows"]} if a else set()
    tap.ok(("compress", app, 3) in live,
           "python: trace names the frame (compress, app.py, 3)", live)
    start("%s replay %s" % (PROBETOP, pyrec), w=160, h=40)
    wait_screen(r"interval 1 of")
    keys("3")
    s = wait_screen(r"compress\s+app\.py:3[\s\S]*other\s+app\.py:5|"
                    r"other\s+app\.py:5[\s\S]*compress\s+app\.py:3", 8)
    tap.ok(re.search(r"compress\s+app\.py:3", s) and
           re.search(r"other\s+app\.py:5", s),
           "python: the replayed Top names each frame as live: "
           "compress app.py:3, other app.py:5", s)
    keys("q")
    wait_screen(r"EXITED \d+")


def record():
    """trace --record of FIRES, each in an interval of its own; the
    target's probes as `list -p PID --json` gives them."""
    t = Target([os.path.join(FIX, "sdt_target")])
    p = subprocess.Popen([PROBETOP, "trace", "-p", str(t.pid), "-i", "0.5",
                          "-e", TICK, "-e", STR, "--record", rec],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    p.stderr.readline()  # attached
    for n in FIRES:
        t.send("fire %d" % n)
        time.sleep(1.1)
    lst = subprocess.run([PROBETOP, "list", "-p", str(t.pid), "--json"],
                         capture_output=True, text=True, timeout=30)
    p.send_signal(signal.SIGINT)
    p.wait(timeout=30)
    t.stop()
    return json.loads(lst.stdout)


def intervals():
    """Each interval's {spec: (count, total)} from replay --json."""
    r = subprocess.run([PROBETOP, "replay", "--json", rec],
                       capture_output=True, text=True, timeout=60)
    out = []
    for line in r.stdout.splitlines():
        o = json.loads(line)
        if o.get("final"):
            continue
        one = {}
        for spec in (TICK, STR):
            rows = agg_of(o, spec)["rows"]
            one[spec] = (sum(x["count"] for x in rows),
                         sum(x["total"] for x in rows))
        one["elapsed_s"] = o["elapsed_s"]
        out.append(one)
    return out


def row_re(total, spec):
    """Top's row of spec with TOTAL total (AVG '-' for a count)."""
    name = "fixture:tick" if spec == TICK else \
        r"fixture:str\s+fixture-string"
    return r"\s%s\s+(-\s+)?%s" % (format(total, ","), name)


def shows(s, total, spec):
    return re.search(row_re(total, spec), s) is not None


def rate(ivs, k, spec):
    """Interval k's events of spec a second as the views print them
    (views/draw.c fmt_rate(): a count with commas from 10 up)."""
    sec = ivs[k]["elapsed_s"] - (ivs[k - 1]["elapsed_s"] if k else 0)
    v = ivs[k][spec][0] / sec
    if v < 10:
        return "%.0f" % v if v == int(v) else "%.1f" % v
    return format(int(v + 0.5), ",")


def probe_rows(s):
    """The Probes view's rows: {provider:name: (state, hits/s)}."""
    out = {}
    for m in re.finditer(r"│ (off|ON|silent)\s+(\S+:\S+)\s+(?:sem|-)\s+\d+"
                         r"\s+(\S*)", s):
        out[m.group(2)] = (m.group(1), m.group(3))
    return out


def bar_at(s):
    m = re.search(r"interval (\d+) of (\d+)", s)
    return (int(m.group(1)), int(m.group(2))) if m else None


try:
    probes = record()
    os.chmod(rec, 0o644)  # for nobody
    ivs = intervals()
    n = len(ivs)
    hit = [k for k, iv in enumerate(ivs) if iv[TICK][0]]
    tap.eq([ivs[k][TICK][0] for k in hit], list(FIRES),
           "the recording: one interval a fire", ivs)
    k1, k2 = hit[0], hit[1]
    start("runuser -u nobody -- %s replay %s" % (PROBETOP, rec), w=160,
          h=40)
    s = wait_screen(r"interval 1 of \d+")
    tap.eq(bar_at(s), (1, n), "opens at interval 1 of %d" % n, s)
    keys("3")
    keys(*(["."] * k1))
    s = wait_screen(r"interval %d of" % (k1 + 1))
    for spec in (TICK, STR):
        tap.ok(shows(s, ivs[k1][spec][1], spec),
               "interval %d: Top shows %s's total %d" %
               (k1 + 1, spec, ivs[k1][spec][1]), s)
    keys(*(["."] * (k2 - k1)))
    s = wait_screen(r"interval %d of" % (k2 + 1))
    for spec in (TICK, STR):
        tap.ok(shows(s, ivs[k2][spec][1], spec),
               "a step on, interval %d: %s's total %d" %
               (k2 + 1, spec, ivs[k2][spec][1]), s)
    keys(",")
    s = wait_screen(r"interval %d of" % k2)
    tap.eq(bar_at(s), (k2, n), ", steps back one", s)
    quiet = k2 - 1
    tap.ok(quiet > k1 and ivs[quiet][TICK][0] == 0 and
           all(shows(s, ivs[k1][spec][1], spec) for spec in (TICK, STR)),
           "interval %d, quiet: Top lists every row with its total, as "
           "live does (it said \"no calls yet\")" % (quiet + 1), s)
    keys("End")
    s = wait_screen(r"interval %d of" % n)
    tap.eq(bar_at(s), (n, n), "End: the last interval", s)
    # the range from the second fire's interval to the last
    keys("Home")
    keys(*(["."] * k2))
    keys("[", "End", "]")
    s = wait_screen(r"range %d-%d" % (k2 + 1, n))
    for spec in (TICK, STR):
        want = sum(iv[spec][0] for iv in ivs[k2:])
        tap.ok(shows(s, want, spec),
               "range %d-%d: %s's total is its intervals' sum, %d" %
               (k2 + 1, n, spec, want), s)
    tap.ok(re.search(r"range %d-%d: totals of [\d.]+ s" % (k2 + 1, n), s),
           "the time bar says the range", s)
    keys("Escape")
    s = wait_screen(r"range cleared")
    bar = [ln for ln in s.splitlines() if re.search(r"interval \d+ of", ln)]
    tap.ok(bar_at(s) == (n, n) and bar and
           not re.search(r"range \d", bar[0]),
           "Esc: the range's last interval alone again", s)
    keys("Home", "0")
    s = wait_screen(r"the end of the recording", 10)
    tap.ok(bar_at(s) == (n, n) and "paused" in s,
           "0 plays at 10x to the last interval, then pauses", s)
    keys("q")
    s = wait_screen(r"EXITED \d+")
    tap.ok("EXITED 0" in s, "q: exit 0", s)

    # the Probes view at the first fire's interval: the recorded list
    start("%s replay %s" % (PROBETOP, rec), w=160, h=40)
    wait_screen(r"interval 1 of")
    keys("2")
    keys(*(["."] * k1))
    s = wait_screen(r"interval %d of" % (k1 + 1))
    rows = probe_rows(s)
    names = sorted("%s:%s" % (p["provider"], p["name"]) for p in probes)
    tap.ok(len(names) > 2, "list -p: %d probes" % len(names), probes)
    tap.eq(sorted(rows), names,
           "Probes on a recording lists the %d probes list -p gave" %
           len(names), s)
    on = {"fixture:tick": rate(ivs, k1, TICK),
          "fixture:str": rate(ivs, k1, STR)}
    tap.eq({k: v for k, v in rows.items() if v[0] != "off"},
           {k: ("ON", r) for k, r in on.items()},
           "the two the specs attached are ON with their recorded hits/s "
           "(%s), the rest off" % on, s)
    tap.ok(re.search(r"%d probes \(2 on\)" % len(names), s),
           "the header counts them and the 2 on", s)
    keys("q")
    wait_screen(r"EXITED \d+")

    # against a baseline: the recording held against itself; at the
    # first fire's interval tick's rate is far above its rate over the
    # whole recording (ratio > 1), and the header names the baseline
    start("%s replay %s --baseline %s" % (PROBETOP, rec, rec), w=160, h=40)
    wait_screen(r"interval 1 of")
    keys("3")
    keys(*(["."] * k1))
    s = wait_screen(r"interval %d of" % (k1 + 1))
    tick_line = next((l for l in s.splitlines() if TICK in l), "")
    m = re.search(r"\+[\d,.]+\s+x(\d+\.\d+)", tick_line)
    tap.ok("DELTA/s" in s and "against the baseline %s" %
           os.path.basename(rec) in s and m and float(m.group(1)) > 1,
           "replay --baseline: Top's DELTA/s and RATIO, tick above its "
           "recording-long rate", s)
    keys("q")
    wait_screen(r"EXITED \d+")

    # cut inside the last interval's record
    cut = os.path.join(tmp, "cut.ptr")
    shutil.copy(rec, cut)
    last = [at for at, typ, _ in record_frames(rec) if typ == "I"][-1]
    os.truncate(cut, last + 25)
    start("%s replay %s" % (PROBETOP, cut), w=160, h=40)
    s = wait_screen(r"the recording ends there")
    tap.ok(re.search(r"cut in the record at byte %d: the recording ends "
                     r"there, after interval %d" % (last, n - 1), s),
           "a cut file: the status line says where it ends", s)
    tap.eq(bar_at(s), (1, n - 1), "and the intervals before it replay", s)
    tap.ok("(cut)" in s, "the time bar says it is cut", s)
    keys("End")
    s = wait_screen(r"interval %d of %d" % (n - 1, n - 1))
    tap.eq(bar_at(s), (n - 1, n - 1), "End: the last whole interval", s)
    keys("q")
    s = wait_screen(r"EXITED \d+")
    tap.ok("EXITED 0" in s, "q: exit 0", s)

    # ended between two records, with no final summary (its writer
    # killed): the status line says its end is missing
    killed = os.path.join(tmp, "killed.ptr")
    shutil.copy(rec, killed)
    os.truncate(killed, last)
    start("%s replay %s" % (PROBETOP, killed), w=160, h=40)
    s = wait_screen(r"no final summary")
    tap.ok(re.search(r"no final summary: the recording ends after "
                     r"interval %d, what came after is missing" % (n - 1), s)
           and bar_at(s) == (1, n - 1),
           "a file that ends between records, with no final summary: the "
           "status line says its end is missing", s)
    keys("q")
    wait_screen(r"EXITED \d+")

    # a byte of the second fire's interval record flipped behind its head
    bad = os.path.join(tmp, "bad.ptr")
    shutil.copy(rec, bad)
    at = [at for at, typ, _ in record_frames(rec) if typ == "I"][k2]
    with open(bad, "r+b") as f:
        f.seek(at + 24)
        c = f.read(1)[0]
        f.seek(at + 24)
        f.write(bytes([c ^ 0x40]))
    start("%s replay %s" % (PROBETOP, bad), w=160, h=40)
    wait_screen(r"interval 1 of")
    keys("End")
    s = wait_screen(r"a bad record at byte %d" % at)
    tap.ok(re.search(r"bad checksum in the record at byte %d; the "
                     r"recording ends there" % at, s) and
           bar_at(s) == (k2, k2),
           "a corrupt record: the intervals before it replay, the "
           "status line says where it ends", s)
    keys("q")
    s = wait_screen(r"EXITED \d+")
    tap.ok("EXITED 1" in s and re.search(
        r"probetop: %s: a bad record at byte %d" % (re.escape(bad), at), s),
        "q: the same line on stderr, exit 1 (as --json)", s)

    py_names()

    r = subprocess.run([PROBETOP, "replay", "/etc/passwd"],
                       capture_output=True, text=True, timeout=30)
    tap.eq((r.returncode, r.stderr),
           (1, "probetop: /etc/passwd: not a probetop recording\n"),
           "a foreign file: one line, exit 1")
finally:
    tmux("kill-session", "-t", SESSION)
    shutil.rmtree(tmp, ignore_errors=True)
tap.done()

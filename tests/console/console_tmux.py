#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The console in a real terminal (tmux), with live BPF: toggle a probe in
Probes and see the exact count in Top, off and on again with its -e spec
intact; build a quantize spec with `a`,
read its buckets in Histogram and zoom one; resize; quit and check that
nothing stays attached; --demo shows Python frames, GC and IO."""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
from tap import Tap, Target, held_links, held_maps, links_left, \
    need_root  # noqa: E402

PROBETOP = os.environ["PROBETOP"]
FIX = os.environ["FIXTURE_DIR"]
SESSION = "probetop-test-%d" % os.getpid()


def tmux(*args):
    return subprocess.run(["tmux"] + list(args), capture_output=True,
                          text=True, check=False)


def screen():
    return tmux("capture-pane", "-p", "-t", SESSION).stdout


def keys(*k):
    for one in k:
        tmux("send-keys", "-t", SESSION, one)
        time.sleep(0.15)


def wait_screen(pattern, timeout=10):
    """Poll the pane until pattern (a regex) shows; return the screen."""
    end = time.time() + timeout
    text = ""
    while time.time() < end:
        text = screen()
        if re.search(pattern, text):
            return text
        time.sleep(0.2)
    return text


def start(cmd, w=120, h=40):
    """A new session SESSION of w x h running cmd. Killing the last
    session ends tmux's server, and a new-session that reaches the server
    while it exits fails ("server exited unexpectedly"): then it is tried
    once more, half a second later (a new server), and says so."""
    tmux("kill-session", "-t", SESSION)
    args = ["new-session", "-d", "-s", SESSION, "-x", str(w), "-y", str(h),
            cmd + "; echo EXITED $?; sleep 60"]
    r = tmux(*args)
    if r.returncode != 0:
        sys.stderr.write("tmux new-session failed (%s): once more\n"
                         % r.stderr.strip())
        time.sleep(0.5)
        r = tmux(*args)
    assert r.returncode == 0, r.stderr


def probetop_pid():
    """The pid of the probetop the tmux pane runs (its shell's child), or
    None if none shows within 5 s. Its /proc/PID/fdinfo tells its own
    links and maps, whatever other probetop runs at the same time."""
    pane = int(tmux("list-panes", "-t", SESSION, "-F",
                    "#{pane_pid}").stdout.split()[0])
    for _ in range(50):
        kids = subprocess.run(["pgrep", "-P", str(pane), "probetop"],
                              capture_output=True, text=True).stdout.split()
        if kids:
            return int(kids[0])
        time.sleep(0.1)
    return None


def link_ids(pid):
    """The ids of the BPF links probetop pid holds now (its sites'
    uprobe_multi or perf-event links, its kernel programs' tracing
    links)."""
    return {l["id"] for l in held_links(pid)}


def test_fixture(tap):
    t = Target([os.path.join(FIX, "sdt_target")])
    try:
        start("%s -p %d" % (PROBETOP, t.pid))
        s = wait_screen(r"probes \(\d+ on\)")
        pid = probetop_pid()
        links = link_ids(pid)  # every link it held, seen while it runs
        tap.ok("pid %d" % t.pid in s, "the header names the pid", s)
        keys("2")
        s = wait_screen(r"fixture:tick")
        tap.ok(re.search(r"off +fixture:tick", s) is not None,
               "Probes lists fixture:tick, off", s)
        keys("/", "tick", "Enter", "Space")
        s = wait_screen(r"(ON|silent) +fixture:tick")
        tap.ok(re.search(r"(ON|silent) +fixture:tick", s) is not None,
               "Space switches it on", s)
        links |= link_ids(pid)
        tap.eq(t.send("fire 1234").strip(), "fired 1234", "target fired")
        cost_row = r"ON +fixture:tick +- +1 +\S+ +\d+\.\d%"
        s = wait_screen(cost_row, 5)
        tap.ok(re.search(r"HITS/s +COST", s) and re.search(cost_row, s),
               "Probes has a COST column: the % of one CPU tick took", s)
        tap.ok(re.search(r"overhead ≈ \d+\.\d% cpu \(\d+% of target\)",
                         s) is not None,
               "the header says overhead ≈ N% cpu (M% of target)", s)
        keys("3")
        tick_row = r"\s1,234\s+(-\s+)?fixture:tick"
        s = wait_screen(tick_row, 5)
        tap.ok(re.search(tick_row, s) is not None,
               "Top shows fixture:tick with exactly 1,234", s)
        # a quantize of arg1 (0..N-1) through the `a` menu
        keys("2", "/", "ints", "Enter", "a")
        s = wait_screen(r"quantize arg1")
        tap.ok("quantize arg1" in s, "the a menu offers quantize arg1", s)
        for _ in range(6):
            keys("Down")
        keys("Enter")
        s = wait_screen(r"ints=quantize\(arg1\)|ON +fixture:ints|silent +fixture:ints")
        links |= link_ids(pid)
        t.send("fire 100")
        keys("4")
        s = wait_screen(r"\n.*\s64 \|.*\s36\b", 6)
        tap.ok(re.search(r"\s64 \|\S*\s+36\b", s) is not None,
               "Histogram: bucket 64 holds 36 of 0..99", s)
        tap.ok(re.search(r"\s32 \|\S*\s+32\b", s) is not None,
               "Histogram: bucket 32 holds 32", s)
        # zoom into the p50 bucket (32..63): lquantize in 16 steps of 2
        keys("Enter")
        s = wait_screen(r"zoomed: .*lquantize\(arg1, 32, 64, 2\)")
        tap.ok("lquantize(arg1, 32, 64, 2)" in s,
               "Enter zooms the bucket into lquantize(arg1, 32, 64, 2)", s)
        links |= link_ids(pid)
        t.send("fire 100")
        s = wait_screen(r"\s40 \|\S*\s+2\b", 6)
        tap.ok(re.search(r"\s40 \|\S*\s+2\b", s) is not None,
               "zoomed: bucket 40 holds exactly 2 (40 and 41)", s)
        keys("Escape")
        s = wait_screen(r"fixture:ints=quantize\(arg1\)")
        tap.ok("zoomed" not in s and "quantize(arg1)" in s,
               "Esc zooms out to quantize(arg1)", s)
        tmux("resize-window", "-t", SESSION, "-x", "80", "-y", "24")
        time.sleep(1.5)
        s = screen()
        tap.ok("probetop" in s and len(s.splitlines()[0]) <= 80,
               "resized to 80x24, still drawn", s)
        keys("1")
        s = wait_screen(r"Top probes")
        tap.ok("Top probes" in s and " GC " in s and " IO " in s,
               "Dashboard at 80x24: Top, GC and IO panes", s)
        tap.ok(s.splitlines()[-1].rstrip().endswith("space toggle  q quit"),
               "at 80x24 the key line ends with q quit", s)
        tmux("resize-window", "-t", SESSION, "-x", "60", "-y", "24")
        s = wait_screen(r"1-7 views")
        tap.eq(s.splitlines()[-1].strip(),
               "1-7 views  / filter  s sort  space toggle  q quit",
               "at 60 columns the key line names the views 1-7", s)
        links |= link_ids(pid)
        keys("q")
        s = wait_screen(r"EXITED \d+")
        tap.ok("EXITED 0" in s, "q quits with status 0", s)
        tap.eq((len(links) > 1, links_left(links)), (True, set()),
               "no link of ours remains (of the %d it held)" % len(links))
    finally:
        tmux("kill-session", "-t", SESSION)
        t.stop()


def test_demo(tap):
    start("%s --demo" % PROBETOP)
    try:
        # calls, or (their traps outweighing the work, as the budget
        # finds on most machines) CPU samples at 99 Hz of a target using
        # some 7% of a CPU: any of its functions, whichever was sampled
        # (a narrow column cuts the file's name from the left: …mo_work…)
        frame = (r"(leaf|fib|churn|main|write_and_read) +"
                 r"(demo_|…)\S*workload\.py:\d+")
        s = wait_screen(frame, 20)
        tap.ok(re.search(frame, s) is not None and
               re.search(r"Top frames, [^─]*(CPU samples|calls)", s) is not None,
               "--demo: Top shows the workload's Python frames, its title "
               "what they are", s)
        # "generation=0" does not fit; a rate the budget sampled is
        # marked (~ an estimate, ≥ a lower bound: where traps are dear,
        # 4.3 us here, the demo's collections are sampled)
        s = wait_screen(r"gen0: [≥~]?[\d.]+/s", 10)
        tap.ok(re.search(r"gen0: [≥~]?[\d.]+/s  gen1: ", s) is not None and
               "pause p50" in s,
               "--demo: the GC pane shows collections and pauses", s)
        s = wait_screen(r"write +\d|syscall IO off", 10)
        # where a syscall is dear (no PCID under PTI) the watch's
        # machine-wide cost passes the budget (5% of one CPU), which
        # turns it off and says so, with what it cost
        off = re.search(r"syscall IO off: it cost ([\d.]+)% of one CPU", s)
        tap.ok((re.search(r"CLASS +CALLS/s +BYTES/s", s) is not None and
                re.search(r"write +\d+(\.\d)? +\d", s) is not None) or
               (off is not None and float(off.group(1)) > 5.0 and
                "over the budget" in s),
               "--demo: the IO pane shows writes per second, or that the "
               "watch cost more than the budget", s)
        keys("2")
        s = wait_screen(r"function__entry")
        keys("/", "function__entry", "Enter")
        s = wait_screen(r"98894")
        tap.ok("98894" in s,
               "Probes says why function__entry is silent on 3.11", s)
        keys("q")
        s = wait_screen(r"EXITED \d+")
        tap.ok("EXITED 0" in s, "--demo: q quits with status 0", s)
    finally:
        tmux("kill-session", "-t", SESSION)


def test_plain(tap):
    """TERM=vt100 and NO_COLOR: ASCII boxes and bars, no colour at all."""
    t = Target([os.path.join(FIX, "sdt_target")])
    start("TERM=vt100 NO_COLOR=1 %s -p %d -e 'fixture:ints=quantize(arg1)'"
          % (PROBETOP, t.pid), 80, 24)
    try:
        wait_screen(r"\+ Top")
        t.send("fire 100")
        s = wait_screen(r"\|@+ +\d+", 10)
        tap.ok(re.search(r"^\+ Top probes, exact -+", s, re.M) is not None and
               re.search(r"\|@+ +\d+", s) is not None and
               not any(ord(c) > 127 for c in s),
               "TERM=vt100: ASCII boxes and histogram bars, nothing else", s)
        coded = tmux("capture-pane", "-p", "-e", "-t", SESSION).stdout
        # 39/49 (default colours) are tmux's own resets
        colour = r"\x1b\[([0-9;]*;)?(3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]"
        tap.ok(re.search(colour, coded) is None,
               "NO_COLOR: no colour escape on screen", repr(coded[:400]))
        keys("q")
        s = wait_screen(r"EXITED \d+")
        tap.ok("EXITED 0" in s, "TERM=vt100: q quits with status 0", s)
    finally:
        tmux("kill-session", "-t", SESSION)
        t.stop()


def test_toggle_keeps(tap):
    """Space off and on in Probes brings back the -e spec that was on the
    probe, keys and all, not a plain count."""
    t = Target([os.path.join(FIX, "sdt_target")])
    start("%s -p %d -e 'fixture:ints=count(arg1)'" % (PROBETOP, t.pid))
    try:
        wait_screen(r"Top probes")
        keys("2", "/", "ints", "Enter", "Space")
        s = wait_screen(r"off: fixture:ints \(1 spec")
        tap.ok(re.search(r"off +fixture:ints", s) is not None,
               "Space: off, the spec kept", s)
        keys("Space")
        s = wait_screen(r"on: fixture:ints=count\(arg1\)")
        tap.ok("on: fixture:ints=count(arg1)" in s,
               "Space again: the -e spec itself is back", s)
        t.send("fire 3")
        keys("3")
        rows = r"fixture:ints +(\d+) *\S"
        s = wait_screen(r"fixture:ints +2 ", 5)
        tap.eq(sorted(re.findall(rows, s)), ["0", "1", "2"],
               "Top: one row per arg1 key, as the spec said", s)
        keys("q")
        wait_screen(r"EXITED \d+")
    finally:
        tmux("kill-session", "-t", SESSION)
        t.stop()


def test_toggle_glob(tap):
    """Space on one probe of a glob spec switches off the spec, says which
    other probes went with it, and Space on any of them brings the glob
    back once (not a plain count on that probe)."""
    t = Target([os.path.join(FIX, "sdt_target")])
    start("%s -p %d -e 'fixture:*str=count()'" % (PROBETOP, t.pid))
    try:
        wait_screen(r"Top probes")
        keys("2", "/", "str", "Enter")
        on = r"(?:ON|silent) +fixture:(lenstr|pagestr|str)\b"
        s = wait_screen(r"silent +fixture:str")
        tap.eq(len(re.findall(on, s)), 3,
               "the glob attaches lenstr, pagestr and str", s)
        keys("End", "Space")  # str: the last of the three
        s = wait_screen(r"off: fixture:str and 2 other probes")
        tap.ok(len(re.findall(r"off +fixture:(lenstr|pagestr|str)\b", s))
               == 3 and "off: fixture:str and 2 other probes the same "
               "spec attached (Space on any brings it back)" in s,
               "Space on str: all three off, the status says 2 others", s)
        keys("Home", "Space")  # lenstr
        s = wait_screen(r"on: fixture:\*str=count\(\)")
        tap.eq(len(re.findall(on, s)), 3,
               "Space on lenstr: the glob is back, all three on", s)
        t.send("fire 2")
        keys("3")
        s = wait_screen(r"\b6 +- +fixture:\*str", 5)
        tap.ok(re.search(r"\b6 +- +fixture:\*str", s) is not None and
               "fixture:lenstr" not in s,
               "Top: one row, the glob's 6 (3 probes fired twice)", s)
        keys("q")
        wait_screen(r"EXITED \d+")
    finally:
        tmux("kill-session", "-t", SESSION)
        t.stop()


def test_toggle_two_globs(tap):
    """Two glob specs on the same three probes: Space off on one probe
    counts each other probe once (2, not 4), and Space on another brings
    both specs back."""
    t = Target([os.path.join(FIX, "sdt_target")])
    start("%s -p %d -e 'fixture:*str=count()' -e 'fixture:*str=sum(arg0)'"
          % (PROBETOP, t.pid))
    try:
        wait_screen(r"Top probes")
        keys("2", "/", "str", "Enter")
        wait_screen(r"silent +fixture:str")
        keys("End", "Space")  # str
        s = wait_screen(r"off: fixture:str and \d+ other probe")
        tap.ok("off: fixture:str and 2 other probes the same specs "
               "attached (Space on any brings them back)" in s,
               "two specs, three probes: 2 others, each counted once", s)
        keys("Home", "Space")  # lenstr
        s = wait_screen(r"on: fixture:\*str=sum\(arg0\)|"
                        r"on: fixture:\*str=count\(\)")
        t.send("fire 2")
        keys("3")
        s = wait_screen(r"\b6 +\S+ +fixture:\*str sum\(arg0\)", 5)
        tap.ok(re.search(r"\b6 +- +fixture:\*str(?! sum)", s) is not None
               and re.search(r"\b6 +\S+ +fixture:\*str sum\(arg0\)", s)
               is not None,
               "Space on lenstr: both specs back, 6 events each in Top", s)
        keys("q")
        wait_screen(r"EXITED \d+")
    finally:
        tmux("kill-session", "-t", SESSION)
        t.stop()


def test_interval_keys(tap):
    """'-' halves the interval and '+' doubles it, between 0.25 s and 60 s
    or, when -i is below 0.25 s, down to that."""
    t = Target([os.path.join(FIX, "sdt_target")])
    start("%s -p %d -i 0.1" % (PROBETOP, t.pid))
    try:
        s = wait_screen(r"live +0\.1s")
        seen = []
        for k, want in (("-", "0.1"), ("+", "0.2"), ("+", "0.4"),
                        ("-", "0.2"), ("-", "0.1"), ("-", "0.1")):
            keys(k)
            time.sleep(0.5)
            s = screen()
            seen.append(re.search(r"live +([0-9.]+)s", s).group(1))
        tap.eq(seen, ["0.1", "0.2", "0.4", "0.2", "0.1", "0.1"],
               "-i 0.1: - stays at 0.1, + doubles, - halves down to 0.1")
        keys("q")
        wait_screen(r"EXITED \d+")
    finally:
        tmux("kill-session", "-t", SESSION)
        t.stop()
    t = Target([os.path.join(FIX, "sdt_target")])
    start("%s -p %d" % (PROBETOP, t.pid))
    try:
        wait_screen(r"live +1s")
        seen = []
        for k in ("-", "-", "-", "+"):
            keys(k)
            time.sleep(0.5)
            seen.append(re.search(r"live +([0-9.]+)s", screen()).group(1))
        tap.eq(seen, ["0.5", "0.25", "0.25", "0.5"],
               "default 1 s: - halves down to 0.25, no lower")
        keys("q")
        wait_screen(r"EXITED \d+")
    finally:
        tmux("kill-session", "-t", SESSION)
        t.stop()


def test_waiting_hint(tap):
    """A -e spec half of which is of a provider the process does not have
    yet waits, and the screen says which half and what it probably meant
    (the warning came before the screen was up); a typo in a provider it
    has is one line and exit 2, before any screen."""
    t = Target([os.path.join(FIX, "sdt_target")])
    start("%s -p %d -e 'fixture:enter..later:leave=latency()'"
          % (PROBETOP, t.pid))
    try:
        want = ("later:leave matches nothing yet; waiting for a library "
                "that has it to be mapped (did you mean fixture:leave?)")
        s = wait_screen(r"Top probes")
        keys("L")
        s = wait_screen(r"Messages")
        # one message, wrapped to the box: its lines joined again
        text = " ".join(l.strip("│ ") for l in s.splitlines()[3:6])
        tap.ok(want in " ".join(text.split()),
               "Messages: the half that matches nothing, and the probe it "
               "meant, wrapped", s)
        keys("q")
        wait_screen(r"EXITED \d+")
        tmux("kill-session", "-t", SESSION)
        start("%s -p %d -e 'fixture:int'" % (PROBETOP, t.pid), w=220)
        s = wait_screen(r"EXITED \d+", 10)
        tap.ok("probetop: -e 'fixture:int': no probe matches in process "
               "%d (nothing it loads later can add it) (did you mean "
               "fixture:ints?)" % t.pid in s and "EXITED 2" in s,
               "a typo: one line, the probe it meant, exit 2", s)
    finally:
        tmux("kill-session", "-t", SESSION)
        t.stop()


def test_drops(tap):
    """--aggsize shrinks the maps; when a spec's map is full the header's
    drops count turns up and Messages says why, with the map's size."""
    t = Target([os.path.join(FIX, "sdt_target")])
    start("%s -p %d --aggsize 4m -e 'fixture:ints=count(arg3)'"
          % (PROBETOP, t.pid))
    try:
        wait_screen(r"Top probes")
        maps = held_maps(probetop_pid())
        cap = [m["max_entries"] for m in maps if m.get("name") == "ncounts"]
        tap.eq(len(cap), 1, "--aggsize: one ncounts map of ours", maps)
        n = 5000
        t.send("fire %d" % n)
        s = wait_screen(r"drops %d\b" % (n - cap[0]))
        tap.ok("drops %d" % (n - cap[0]) in s,
               "the header counts what did not fit", s)
        keys("L")
        s = wait_screen(r"Messages")
        text = " ".join(l.strip("│ ") for l in s.splitlines()[3:6])
        want = ("fixture:ints=count(arg3): %d dropped: %d map full at %d "
                "keys, raise --aggsize" % (n - cap[0], n - cap[0], cap[0]))
        tap.ok(want in text, "Messages: why, and how big the map is", s)
        keys("q")
        wait_screen(r"EXITED \d+")
    finally:
        tmux("kill-session", "-t", SESSION)
        t.stop()


def test_kernel_drops(tap):
    """A launched command forks more children (each its own exit status)
    than --aggsize 1m leaves process keys for: the header counts the
    exits that did not fit, and Messages says why, with the map's size."""
    with tempfile.NamedTemporaryFile("w", suffix=".py") as f:
        f.write("import os, time\n"
                "for i in range(1, 81):\n"
                "    pid = os.fork()\n"
                "    if pid == 0:\n"
                "        os._exit(i)\n"
                "    os.waitpid(pid, 0)\n"
                "time.sleep(1000)\n")
        f.flush()
        start("%s --aggsize 1m -P process -- /usr/bin/python3.11 %s"
              % (PROBETOP, f.name), 120, 30)
        try:
            wait_screen(r"pid \d+ python3.11")
            cap = [m["max_entries"] for m in held_maps(probetop_pid())
                   if m.get("name") == "proc"]
            tap.eq(len(cap), 1, "one process map of ours")
            # its exec and fork rows, and exits 1..cap-2, fit
            lost = 80 - (cap[0] - 2)
            s = wait_screen(r"drops %d\b" % lost)
            tap.ok("drops %d" % lost in s,
                   "the header counts the process events that did not fit",
                   s)
            keys("L")
            s = wait_screen(r"Messages")
            text = " ".join(l.strip("│ ") for l in s.splitlines()[3:6])
            want = ("dropped by the kernel: %d process events, map full at "
                    "%d keys; raise --aggsize" % (lost, cap[0]))
            tap.ok(want in text, "Messages: why, and how big the map is", s)
            keys("Escape", "6")
            s = wait_screen(r"lost  ")
            tap.ok(" lost  %d process events, map full at %d keys; raise "
                   "--aggsize" % (lost, cap[0]) in s,
                   "IO view: what the kernel lost, and why", s)
            keys("q")
            wait_screen(r"EXITED \d+")
        finally:
            tmux("kill-session", "-t", SESSION)


def test_picker(tap):
    """probetop alone: the picker lists our target, / filters, Enter
    attaches."""
    t = Target([os.path.join(FIX, "sdt_target")])
    start(PROBETOP, 120, 30)
    try:
        s = wait_screen(r"Processes with probes")
        keys("/", "sdt_target", "Enter")
        s = wait_screen(r"\b%d\b.*sdt_target" % t.pid)
        row = [l for l in s.splitlines() if " %d " % t.pid in l]
        tap.ok(len(row) == 1 and re.search(r"sdt_target +15 ", row[0])
               is not None and "nothing matches" not in s,
               "picker: the filter shows the target with its 15 probes", s)
        keys("Enter")
        s = wait_screen(r"pid %d sdt_target" % t.pid)
        tap.ok("pid %d sdt_target" % t.pid in s,
               "picker: Enter attaches to it", s)
        keys("q")
        s = wait_screen(r"EXITED \d+")
        tap.ok("EXITED 0" in s and t.p.poll() is None,
               "picker: q quits with status 0, the target runs on", s)
    finally:
        tmux("kill-session", "-t", SESSION)
        t.stop()


def test_process(tap):
    """The IO view's process rows: what a launched shell runs, exact."""
    start("%s -- sh -c '/bin/true; /bin/true; /bin/true; sh -c \"exit 5\"; "
          "exec sleep 1000'" % PROBETOP, 120, 30)
    try:
        s = wait_screen(r"procs/s +fork")
        tap.ok(re.search(r"procs/s  fork \S+  exec \S+  exit \S+  thread \S+",
                         s) is not None,
               "Dashboard: the IO pane sums forks, execs, exits, threads", s)
        keys("6")
        s = wait_screen(r"exit +5 +\S+ +1 +\S+ +sh")
        tap.ok(re.search(r"exec +\S+ +3 +/bin/true", s) is not None and
               re.search(r"exit +0 +\S+ +3 +\S+ +true", s) is not None and
               re.search(r"exit +5 +\S+ +1 +\S+ +sh", s) is not None and
               re.search(r"exec +\S+ +1 +/usr/bin/sleep", s) is not None,
               "IO view: exact execs by file and exits by status", s)
        keys("q")
        s = wait_screen(r"EXITED \d+")
        tap.ok("EXITED 0" in s, "q quits and ends the command", s)
    finally:
        tmux("kill-session", "-t", SESSION)


def test_io_budget(tap):
    """The default IO watch's syscall tracepoints tax every process on
    the machine: beside a `dd bs=1` (millions of syscalls a second) they
    cost more than the 5% budget, and the console turns the watch off,
    saying what it cost; -P io keeps it on whatever it costs."""
    dd = subprocess.Popen(["dd", "if=/dev/zero", "of=/dev/null", "bs=1",
                           "count=1000000000"], stderr=subprocess.DEVNULL)
    try:
        start("%s -- sleep 1000" % PROBETOP, 120, 30)
        s = wait_screen(r"syscall IO off: it cost [0-9.]+% of one CPU", 15)
        m = re.search(r"syscall IO off: it cost ([0-9.]+)% of one CPU", s)
        tap.ok(m is not None and float(m.group(1)) > 5,
               "Dashboard: the default IO watch over the budget is turned "
               "off, with what it cost", s)
        tap.ok(re.search(r"machine-wide \(\+[0-9.]+ \S+ a syscall", s)
               is not None and "-P io (or --budget off) watches it" in s,
               "IO pane: what it added to each syscall, how to watch it", s)
        time.sleep(2.5)
        m = re.search(r"overhead \S+ ([0-9.]+)%", screen())
        tap.ok(m is not None and float(m.group(1)) < 5,
               "the header's overhead falls back under the budget",
               screen())
        start("%s -P io -- sleep 1000" % PROBETOP, 120, 30)
        s = wait_screen(r"CLASS +CALLS/s", 10)
        time.sleep(2.5)
        s = screen()
        tap.ok("syscall IO off" not in s and
               re.search(r"CLASS +CALLS/s", s) is not None,
               "-P io: the watch stays on whatever it costs", s)
        keys("q")
    finally:
        dd.kill()
        dd.wait()
        tmux("kill-session", "-t", SESSION)


def test_binary(tap):
    """-b: every process running the file, present and future, one row
    per pid with its command line and its exact count."""
    exe = os.path.join(FIX, "sdt_target")
    a, b = Target([exe]), Target([exe, "-w2"])  # -w2: named, ignored
    c = None
    start("%s -b %s -e fixture:tick" % (PROBETOP, exe), 120, 30)
    try:
        wait_screen(r"every process running it")
        a.send("fire 5")
        b.send("fire 7")
        c = Target([exe])  # started after attach
        time.sleep(0.5)    # the new process's own rescan
        c.send("fire 3")
        # gone before the console looks: named as the kernel saw it
        d = subprocess.Popen([exe, "fire", "4"], stdin=subprocess.DEVNULL)
        d.wait()
        # COMMAND is as wide as the longest command line (16 at least)
        s = wait_screen(r"\b%d .+? +\S+ +4 +fixture:tick" % d.pid)
        rows = {int(m.group(1)): (m.group(2).rstrip(), int(m.group(3)))
                for m in re.finditer(
                    r"^\W*(\d+) (.+?) +\S+ +(\d+) +fixture:tick", s,
                    re.M)}
        tap.eq(rows, {a.pid: ("sdt_target", 5), b.pid: ("sdt_target -w2", 7),
                      c.pid: ("sdt_target", 3),
                      d.pid: ("sdt_target fire 4", 4)},
               "-b: PID and COMMAND columns, exact counts per process, a "
               "process started later included, one that has exited "
               "named as it ran")
        tap.ok("no syscall IO with -b" in s,
               "-b: the IO pane says why it is empty", s)
        keys("q")
        s = wait_screen(r"EXITED \d+")
        tap.ok("EXITED 0" in s and a.p.poll() is None,
               "-b: q quits, the processes run on", s)
    finally:
        tmux("kill-session", "-t", SESSION)
        for t in (a, b, c):
            if t:
                t.stop()


def test_errors(tap):
    r = subprocess.run([PROBETOP, "-p", "1"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    tap.eq((r.returncode, r.stderr),
           (2, "probetop: the console needs a terminal; for scripts use "
               "probetop trace\n"), "no terminal: one line, exit 2")
    start("%s -p 999999" % PROBETOP)
    try:
        s = wait_screen(r"EXITED \d+")
        tap.ok("no such process: 999999" in s and "EXITED 1" in s,
               "a bad pid: one line on the terminal once the screen is "
               "gone, exit 1", s)
    finally:
        tmux("kill-session", "-t", SESSION)


def test_inert(tap):
    """A Python file named with ESC ] 0 ; x BEL (retitle), ESC [ 2 J
    (clear) and a newline: its key shows escaped on one row, the screen
    is not cleared and the pane keeps its title."""
    evil = "e\x1b]0;x\x07\x1b[2J\nv.py"
    shown = "e\\x1b]0;x\\x07\\x1b[2J\\nv.py"
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, evil)
        with open(script, "w") as f:
            f.write("import sys\ndef f(): return 1\n"
                    "print('ready', flush=True)\nsys.stdin.readline()\n"
                    "for _ in range(7):\n    f()\n"
                    "print('done', flush=True)\nsys.stdin.readline()\n")
        t = Target(["/usr/bin/python3.11", script])
        start("%s -p %d -e 'python:function__return=count(str(arg0))'"
              % (PROBETOP, t.pid))
        try:
            wait_screen(r"Top probes")
            title = tmux("display", "-p", "-t", SESSION,
                         "#{pane_title}").stdout.strip()
            t.send("go")
            keys("3")
            row = r"\s7\s+(-\s+)?python:function__return\s+" + re.escape(
                os.path.join(tmp, shown)) + r"\s+│"
            s = wait_screen(row)
            tap.ok(re.search(row, s, re.M) is not None,
                   "the key escaped, on one row with its exact count", s)
            tap.ok(not any(l.startswith("v.py") for l in s.splitlines()),
                   "no line begins where the name's newline was", s)
            tap.ok(s.splitlines()[0].startswith(" probetop  pid %d" % t.pid)
                   and "Top probes" in s,
                   "the screen was not cleared: header and box still "
                   "there", s)
            tap.eq(tmux("display", "-p", "-t", SESSION,
                        "#{pane_title}").stdout.strip(), title,
                   "the pane's title is not the target's")
            keys("q")
            wait_screen(r"EXITED \d+")
        finally:
            tmux("kill-session", "-t", SESSION)
            t.stop()


def script_in(tmp, name, text):
    """Write text to tmp/name; its path."""
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


BUSY = """\
def tick(x):
    return x + 1
s = 0
while True:
    s = tick(s)
"""


SPIN = """\
import time
def spin():
    end = time.perf_counter() + 0.05
    while time.perf_counter() < end:
        pass
while True:
    spin()
"""


def test_pysample(tap):
    """A CPython without USDT probes (pyenv's 3.12): the pysample
    probeset is picked by its _PyRuntime, and Top's frames are CPU
    samples: spin at some 99 samples a second, its % of one CPU. Debian's
    python3.11 has USDT probes too: Top starts on the exact calls, and x
    switches it to the samples and back."""
    py312 = "/root/.pyenv/versions/3.12.1/bin/python3.12"
    with tempfile.TemporaryDirectory() as tmp:
        script = script_in(tmp, "spin.py", SPIN)
        try:
            start("%s -- %s %s" % (PROBETOP, py312, script))
            wait_screen(r"probes \(\d+ on\)")
            keys("3")
            row = r"│ +(9\d|10\d|8\d) +[\d,]+ +(9\d|10\d|8\d)\.\d% +spin +spin\.py:2"
            s = wait_screen(row, 10)
            tap.ok("Top frames, CPU samples" in s and "SAMPLES/s" in s and
                   "%CPU" in s and re.search(row, s) is not None,
                   "pysample: Top shows spin by CPU samples on a CPython "
                   "without USDT", s)
            keys("q")
            start("%s -- /usr/bin/python3.11 %s" % (PROBETOP, script))
            wait_screen(r"probes \(\d+ on\)")
            keys("3")
            s = wait_screen(r"Top frames, exact calls", 10)
            tap.ok("Top frames, exact calls" in s and "CALLS/s" in s,
                   "python3.11 with USDT: Top starts on exact calls", s)
            keys("x")
            s = wait_screen(r"Top frames, CPU samples", 5)
            tap.ok("Top frames: CPU samples, % of one CPU" in s and
                   "Top frames, CPU samples" in s,
                   "x: switched to CPU samples, said", s)
            keys("x")
            s = wait_screen(r"Top frames, exact calls", 5)
            tap.ok("Top frames, exact calls" in s, "x again: exact calls", s)
            keys("q")
        finally:
            tmux("kill-session", "-t", SESSION)


def test_starting(tap):
    """The screen comes up at once and says what probetop does until the
    first interval: loading its BPF programs, then attaching each
    probeset's specs (one of N), with the command in the header."""
    with tempfile.TemporaryDirectory() as tmp:
        script = script_in(tmp, "spin.py", SPIN)
        try:
            start("%s -- /usr/bin/python3.11 %s" % (PROBETOP, script))
            seen, end = [], time.time() + 20
            while time.time() < end:
                s = screen()
                if not seen or s != seen[-1]:
                    seen.append(s)
                if re.search(r"probes \(\d+ on\)", s):
                    break
                time.sleep(0.02)
            first = next((s for s in seen if s.strip()), "")
            said = [re.search(r"starting: ([^\n…]*)", s) for s in seen]
            said = [m.group(1).strip() for m in said if m]
            tap.ok("probetop  /usr/bin/python3.11" in first and
                   "loading the BPF programs" in said and
                   any(re.match(r"attaching -P python: \d+ of \d+$", w)
                       for w in said) and
                   re.search(r"probes \(\d+ on\)", seen[-1]),
                   "starting: the first screen says what probetop does "
                   "(loading, attaching N of M) until the first interval",
                   said or seen[:3])
            keys("q")
            s = wait_screen(r"EXITED \d+")
            tap.ok("EXITED 0" in s, "q after the start: exit 0", s)
        finally:
            tmux("kill-session", "-t", SESSION)


def test_budget(tap):
    """A Python calling a function as fast as it can, launched: under the
    default budget its calls can only be lower bounds (the traps take
    most of the windows' CPU time: no estimate can promise 15%), so Top
    shows the CPU samples; x shows the calls, each number with ≥, the
    title says so and the footer what every call would cost; the footer
    says it is sampled and why, the header the budget; b steps the budget
    up to 10%, 25% and off, after which its rate is exact again."""
    with tempfile.TemporaryDirectory() as tmp:
        script = script_in(tmp, "busy.py", BUSY)
        try:
            start("%s -- /usr/bin/python3.11 %s" % (PROBETOP, script))
            wait_screen(r"probes \(\d+ on\)")
            keys("3")
            s = wait_screen(r"Top frames, CPU samples", 10)
            tap.ok(re.search(r"Top frames, CPU samples", s) and
                   re.search(r"│ +[\d.]+ +[\d,]+ +[\d.]+% +tick ", s),
                   "budget: the calls only lower bounds, Top shows the "
                   "CPU samples", s)
            keys("x")
            s = wait_screen(r"all would cost", 5)
            tap.ok(re.search(r"calls: all would cost ~\d+\.\d% of a CPU; "
                             r"the 5% budget samples them: ≥ lower bounds "
                             r"\(b: exact\)", s) is not None,
                   "x: the calls, and what every one would cost", s)
            row = r"│ *≥[\d,.]+[KM]? +≥[\d,]+ .* tick "
            s = wait_screen(row, 10)
            tap.ok(re.search(row, s) is not None,
                   "budget: Top's rate and total of a one-line function "
                   "carry ≥ (lower bounds)", s)
            tap.ok(re.search(r"Top frames, [^│]*≥ lower-bound calls", s)
                   is not None, "budget: Top's title says its rows are "
                   "lower bounds", s)
            keys("3")  # a key clears the last message from the footer
            s = wait_screen(r"~ sampled \d+% of the time", 5)
            tap.ok(re.search(r"~ sampled \d+% of the time to stay under "
                             r"the 5% budget \(b\): "
                             r"python:function__return", s) is not None,
                   "budget: the footer says what is sampled and why", s)
            tap.ok(re.search(r"overhead ≈ \d+\.\d% cpu \(\d+% of target\), "
                             r"budget 5%", s) is not None,
                   "budget: the header shows the budget", s)
            keys("b")
            s = wait_screen(r"budget 10%: tracing may take 10% of one CPU",
                            3)
            tap.ok("budget 10%: tracing may take 10% of one CPU" in s,
                   "budget: b steps it to 10%", s)
            s = wait_screen(r"\), budget 10%", 3)
            tap.ok(re.search(r"\), budget 10%", s) is not None,
                   "budget: the header follows", s)
            keys("b", "b")
            s = wait_screen(r"no budget: every probe counted exactly", 3)
            tap.ok("no budget: every probe counted exactly" in s,
                   "budget: b, b: 25%, then off", s)
            exact = r"│ *[\d,.]+[KM]? +≥[\d,]+ .* tick "
            s = wait_screen(exact, 5)
            tap.ok(re.search(exact, s) is not None and
                   "~ sampled" not in s,
                   "budget off: the rate exact again (the total holds "
                   "a lower bound), nothing sampled", s)
            keys("q")
            s = wait_screen(r"EXITED 0", 5)
            tap.ok("EXITED 0" in s, "budget: q quits", s)
        finally:
            tmux("kill-session", "-t", SESSION)


def main():
    tap = Tap()
    need_root(tap)
    test_errors(tap)
    test_starting(tap)
    test_plain(tap)
    test_picker(tap)
    test_fixture(tap)
    test_toggle_keeps(tap)
    test_toggle_glob(tap)
    test_toggle_two_globs(tap)
    test_interval_keys(tap)
    test_waiting_hint(tap)
    test_drops(tap)
    test_kernel_drops(tap)
    test_process(tap)
    test_io_budget(tap)
    test_binary(tap)
    test_inert(tap)
    test_budget(tap)
    test_pysample(tap)
    test_demo(tap)
    tap.done()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Stacks view (7) in a real terminal (tmux) on pyenv's CPython 3.12
(the pysample probeset, profile:99=count(pystack)): a workload that
spends three times as long in alpha() as in beta() draws alpha three
times as wide as beta (within 25%), at 80x24 and at 200x50; / finds
beta and gives its share; g, Down, Down, Enter zooms into alpha and Esc
zooms out; S on Top's row jumps to its function's frames, and so does
Enter (Top's rows are CPU samples, as its title says: they time no call,
so there is no histogram); with no pystack aggregation Enter says why
there is nothing to open. Native stacks (profile:99=count(ustack)) of
Debian's python3.11: frames of python3.11 and of libc.so.6 are drawn in
different colours (capture-pane -e), on 8 colours and on 256; the
status line names the module of the frame under the cursor; the
frames drawn are the names --folded prints for the same process, no
module prefix added."""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                "integration"))
from console_tmux import PROBETOP, SESSION, keys, screen, start, tmux, \
    wait_screen  # noqa: E402
from tap import Tap, Trace, need_root  # noqa: E402

PY312 = "/root/.pyenv/versions/3.12.1/bin/python3.12"

# alpha or beta at random, 3:1, each the same 2 ms of work: the CPU
# splits 3:1 whatever the phase of the 99 Hz samples
TWO_PATHS = """\
import random
import time
def work():
    end = time.perf_counter() + 0.002
    while time.perf_counter() < end:
        pass
def alpha():
    work()
def beta():
    work()
while True:
    if random.random() < 0.75:
        alpha()
    else:
        beta()
"""


def frame_width(s, name):
    """The columns of the frame named name on screen s (its name to the
    '|' that closes it), or 0."""
    for line in s.splitlines():
        m = re.search(r"(?:^|[│|])(%s\b[^|]*\|)" % re.escape(name), line)
        if m:
            return len(m.group(1))
    return 0


def samples(s):
    """The total on the status line (the cursor is on all)."""
    m = re.search(r"total ([\d,]+) \(", s)
    return int(m.group(1).replace(",", "")) if m else 0


def share(tap, name, lo, hi):
    """/ name: the search line gives its share of the samples."""
    keys("/", name, "Enter")
    s = wait_screen(r"/%s: \d+ frames?, [\d.]+%% of the samples" % name, 5)
    m = re.search(r"/%s: (\d+) frames?, ([\d.]+)%% of the samples" % name, s)
    pct = float(m.group(2)) if m else -1
    tap.ok(m is not None and lo <= pct <= hi,
           "/%s: %s%% of the samples (want %g..%g)" % (name, pct, lo, hi), s)
    keys("Escape")  # clears the search
    return pct


def widths(tap, size):
    """alpha and beta drawn 3:1 (within 25%) at this size."""
    s = screen()
    a, b = frame_width(s, "alpha"), frame_width(s, "beta")
    ratio = a / b if b else 0
    tap.ok(2.25 <= ratio <= 3.75,
           "%s: alpha %d columns, beta %d: %.2f, 3:1 within 25%%"
           % (size, a, b, ratio), s)


def test_stacks(tap, script):
    start("%s -- %s %s" % (PROBETOP, PY312, script), 80, 24)
    try:
        wait_screen(r"probes \(\d+ on\)", 10)
        keys("7")
        s = wait_screen(r"\|beta", 10)
        tap.ok("Stacks, profile:99=count(pystack)" in s and
               re.search(r"│all +\|", s) and "<module>" in s,
               "7: the Stacks view shows the pystack aggregation, all "
               "on top", s)
        end = time.time() + 20
        while samples(screen()) < 800 and time.time() < end:
            time.sleep(0.5)
        widths(tap, "80x24")
        a = share(tap, "alpha", 60, 85)
        b = share(tap, "beta", 15, 35)
        tap.ok(b > 0 and 2.25 <= a / b <= 3.75,
               "alpha's share %.1f%% is 3x beta's %.1f%% (within 25%%)"
               % (a, b))
        keys("g", "Down", "Down")  # from all: <module>, then its widest
        s = wait_screen(r"│ alpha  (two\.py:\d+  )?self", 3)
        tap.ok(re.search(r"│ alpha  (two\.py:\d+  )?self", s),
               "g, Down, Down: the cursor on alpha, said on the status "
               "line", s)
        keys("Enter")
        s = wait_screen(r"zoom: all > <module> > alpha", 3)
        tap.ok("zoom: all > <module> > alpha (Esc out)" in s and
               re.search(r"│alpha +\|│", s) and "beta" not in s,
               "Enter zooms: alpha is the full width, beta gone", s)
        keys("Escape")
        s = wait_screen(r"\|beta", 3)
        tap.ok("zoom:" not in s and re.search(r"\|beta", s),
               "Esc zooms out: beta is back", s)
        tmux("resize-window", "-t", SESSION, "-x", "200", "-y", "50")
        time.sleep(1.5)
        widths(tap, "200x50")
        keys("3")
        wait_screen(r"work +two\.py:3", 5)
        keys("S")
        s = wait_screen(r"work: 2 frames", 5)
        tap.ok(re.search(r"work: 2 frames, [\d.]+% of the samples", s) and
               re.search(r"│ work  two\.py:3  self", s),
               "S on Top's work: Stacks highlights work under alpha and "
               "beta, its file:line on the status line", s)
        keys("3")
        s = wait_screen(r"Top frames, CPU samples", 5)
        tap.ok("Top frames, CPU samples" in s and "SAMPLES/s" in s,
               "Top's title: its rows are CPU samples", s)
        keys("Escape")  # S's search cleared, back in Top
        keys("3", "/", "work", "Enter", "Enter")
        s = wait_screen(r"work: 2 frames", 5)
        tap.ok("Stacks, profile:99=count(pystack)" in s and
               re.search(r"work: 2 frames, [\d.]+% of the samples", s) and
               re.search(r"│ work  two\.py:3  self", s),
               "Enter on Top's work (CPU samples): Stacks highlights "
               "work, the cursor on it", s)
        keys("q")
        s = wait_screen(r"EXITED \d+", 5)
        tap.ok("EXITED 0" in s, "q quits", s)
    finally:
        tmux("kill-session", "-t", SESSION)


def test_no_stacks(tap, script):
    """Samples without a stack aggregation: Enter on a row says why there
    is nothing to open, on the status line."""
    start("%s -e 'profile:99=count(pyframe)' -- %s %s"
          % (PROBETOP, PY312, script), 120, 24)
    try:
        keys("3")
        s = wait_screen(r"profile:99 +work", 10)
        keys("/", "work", "Enter", "Enter")
        s = wait_screen(r"work: CPU samples time no call", 5)
        tap.ok("work: CPU samples time no call, so no histogram; its "
               "stacks need -e 'profile:99=count(pystack)'" in s and
               "Top probes, CPU samples" in s,
               "no pystack: Enter on a CPU-sample row says why there is "
               "nothing to open", s)
        keys("q")
        wait_screen(r"EXITED \d+", 5)
    finally:
        tmux("kill-session", "-t", SESSION)


PY311 = "/usr/bin/python3.11"
USTACK = "profile:99=count(ustack)"
SPIN = """\
def work(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s
while True:
    work(10000)
"""


def cells_bg(coded):
    """Each line of a capture-pane -e screen as (text, bg), bg the
    background of each character of text: an int (0-7, 8-15 bright, or
    a 256-colour index), None for the default."""
    out = []
    bg = None
    for line in coded.split("\n"):
        text, bgs = [], []
        for part in re.split(r"(\x1b\[[0-9;:]*m)", line):
            m = re.fullmatch(r"\x1b\[([0-9;:]*)m", part)
            if not m:
                text.append(part)
                bgs.extend([bg] * len(part))
                continue
            ps = [int(x) if x else 0 for x in re.split("[;:]", m.group(1))]
            i = 0
            while i < len(ps):
                p = ps[i]
                if p == 0 or p == 49:
                    bg = None
                elif 40 <= p <= 47:
                    bg = p - 40
                elif 100 <= p <= 107:
                    bg = p - 100 + 8
                elif p in (38, 48) and i + 2 < len(ps) and ps[i + 1] == 5:
                    if p == 48:
                        bg = ps[i + 2]
                    i += 2
                elif p in (38, 48) and i + 4 < len(ps) and ps[i + 1] == 2:
                    if p == 48:
                        bg = tuple(ps[i + 2:i + 5])
                    i += 4
                i += 1
        out.append(("".join(text), bgs))
    return out


def frame_bg(lines, name):
    """The background of the frame drawn as name (a cell starting with
    it, closed by '|'), or False if none is drawn."""
    for text, bgs in lines:
        m = re.search(r"(?:^|[│|])(%s) *\|" % re.escape(name), text)
        if m:
            return bgs[m.start(1)]
    return False


def drawn_frames(s):
    """The names of the frames on a screen's graph (from below its info
    line to its status line), "all" left out: whole names only (a cut one
    ends with the mark)."""
    lines = s.splitlines()
    names = set()
    for line in lines[4:]:
        if " self " in line:
            break  # the status line
        if "|" not in line:
            continue
        inner = line.strip("│x ")
        for cell in inner.split("|"):
            cell = cell.strip()
            if cell and cell != "all" and not cell.startswith("+") and \
                    not cell.endswith(("\u2026", "~")):
                names.add(cell)
    return names


def folded_names(pid, seconds=3):
    """Every frame name of trace --folded on pid over seconds (after it
    attached): its final block."""
    tr = Trace(["-p", str(pid), "-i", "60", "--folded", "-e", USTACK],
               json_out=False)
    time.sleep(seconds)
    tr.finish()
    names = set()
    for line in tr.stdout.split("# final")[-1].splitlines():
        if line.startswith("#") or " " not in line:
            continue
        names.update(line.rsplit(" ", 1)[0].split(";"))
    return names


def show_ustack(tap, what):
    """Stacks (7) on the ustack spec (Tab past the pystack one)."""
    keys("7")
    for _ in range(4):
        s = wait_screen(r"Stacks, " + re.escape(USTACK), 2)
        if "Stacks, " + USTACK in s:
            break
        keys("Tab")
    s = wait_screen(r"│Py_BytesMain +\|", 15)
    tap.ok("Stacks, " + USTACK in s and "│Py_BytesMain " in s,
           "%s: Stacks shows the native stacks of python3.11" % what, s)
    return s


def test_modules(tap, script, term, what):
    """python3.11's and libc's frames in different colours; the module
    on the status line; names as --folded's."""
    py = subprocess.Popen([PY311, script], stdout=subprocess.DEVNULL)
    start("TERM=%s %s -p %d -e '%s'" % (term, PROBETOP, py.pid, USTACK),
          200, 50)
    try:
        wait_screen(r"probes \(\d+ on\)", 10)
        show_ustack(tap, what)
        time.sleep(2)
        coded = tmux("capture-pane", "-p", "-e", "-t", SESSION).stdout
        lines = cells_bg(coded)
        main_bg = frame_bg(lines, "Py_BytesMain")
        libc_bg = frame_bg(lines, "__libc_start_call_main")
        tap.ok(main_bg not in (False, None) and
               libc_bg not in (False, None) and main_bg != libc_bg,
               "%s: Py_BytesMain (python3.11) on colour %r, "
               "__libc_start_call_main (libc.so.6) on %r" %
               (what, main_bg, libc_bg), repr(coded[:2000]))
        py_bgs = {frame_bg(lines, n) for n in ("_start", "Py_BytesMain",
                                                "Py_RunMain")}
        libc_bgs = {frame_bg(lines, n) for n in ("__libc_start_main",
                                                  "__libc_start_call_main")}
        tap.ok(len(py_bgs) == 1 and len(libc_bgs) == 1 and
               None not in py_bgs | libc_bgs and
               False not in py_bgs | libc_bgs,
               "%s: python3.11's frames _start, Py_BytesMain, Py_RunMain "
               "share one colour %r, libc's __libc_start_main and "
               "__libc_start_call_main another %r" %
               (what, py_bgs, libc_bgs), screen())
        keys("/", "__libc_start_call_main", "Enter")
        s = wait_screen(r"│ __libc_start_call_main in libc\.so\.6  self", 5)
        tap.ok(re.search(r"│ __libc_start_call_main in libc\.so\.6  self",
                         s),
               "%s: the status line names the cursor's module, libc.so.6"
               % what, s)
        keys("Escape", "/", "Py_RunMain", "Enter")
        s = wait_screen(r"│ Py_RunMain in python3\.11  self", 5)
        tap.ok(re.search(r"│ Py_RunMain in python3\.11  self", s),
               "%s: ... and python3.11 on Py_RunMain" % what, s)
        keys("Escape")
        if term == "screen":
            drawn = drawn_frames(screen())
            folded = folded_names(py.pid)
            missing = sorted(n for n in drawn if n not in folded)
            leaked = sorted(n for n in drawn
                            if re.match(r"^[\w.+-]+(\.so[\w.]*|python3\.11)"
                                        r"[`:!]", n))
            tap.ok(len(drawn) >= 8 and not leaked and
                   len(missing) <= len(drawn) // 10,
                   "%s: the %d frames drawn are --folded's names (%d "
                   "not sampled by that run), no module prefix" %
                   (what, len(drawn), len(missing)),
                   "missing: %r\nleaked: %r" % (missing, leaked))
        keys("q")
        wait_screen(r"EXITED \d+", 5)
    finally:
        tmux("kill-session", "-t", SESSION)
        py.kill()
        py.wait()


def main():
    tap = Tap()
    need_root(tap)
    if not os.access(PY312, os.X_OK):
        tap.skip_all("no %s" % PY312)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "two.py")
        with open(script, "w") as f:
            f.write(TWO_PATHS)
        os.chmod(tmp, 0o755)
        test_stacks(tap, script)
        test_no_stacks(tap, script)
        spin = os.path.join(tmp, "spin.py")
        with open(spin, "w") as f:
            f.write(SPIN)
        test_modules(tap, spin, "screen", "8 colours")
        test_modules(tap, spin, "tmux-256color", "256 colours")
    tap.done()


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: MIT
"""trace --record and probetop replay (issue 37) on the C fixture, which
fires its probes an exact number of times: replay --json prints the very
lines trace --json printed live (every interval's rows and the final
totals; with -b, each row's pid and command), replay --folded the very
stacks; the file is 0600 and never overwritten; names are stored once; a
file cut inside a record replays what is before it with one message,
exit 0, and so does one that ends between records with no final summary
(killed, or its disk full: one line says its end is missing); a foreign file, a later format and a bad checksum are one line
each, exit 1; a full disk stops the recording with one message while
trace goes on, its output whole; the recording keeps the target's
probe list ('P' records), the very probes `list -p PID --json` gives,
and again when a library loaded later adds probes."""

import json
import os
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import zlib

from tap import (FIXTURE_DIR, Tap, Target, Trace, agg_of, dlopen_script,
                 listed_probes, need_root, record_frames as frames,
                 record_probe_list, rows_by_key, run, trace_wait_err)

tap = Tap()
need_root(tap)
EXE = os.path.join(FIXTURE_DIR, "sdt_target")
TMP = tempfile.mkdtemp(prefix="trace_record.")
SPECS = ["fixture:tick", "fixture:ints=quantize(arg0)",
         "fixture:ints=count(arg3)", "fixture:ints=sum(arg1)",
         "fixture:str=count(str(arg0))",
         "fixture:global=lquantize(arg0, 0, 60, 10)",
         "fixture:enter..fixture:leave=latency(arg0)",
         "fixture:tick=count(ustack)"]
FIRES = [100, 50, 25]


def spec_args(specs):
    args = []
    for s in specs:
        args += ["-e", s]
    return args


def wait_out(tr, n, timeout=20):
    """Wait until trace printed n lines on stdout."""
    end = time.time() + timeout
    while len(tr.out) < n and time.time() < end:
        time.sleep(0.05)
    return len(tr.out) >= n


def traced_run(path, extra, fires=FIRES, specs=SPECS):
    """A traced run of the fixture: each count of fires in an interval of
    its own (waiting for the interval's line), then SIGINT; tr.listed is
    what `list -p PID --json` printed while it ran."""
    t = Target([EXE])
    tr = Trace(["-p", str(t.pid), "-i", "0.4"] + extra +
               (["--record", path] if path else []) + spec_args(specs),
               json_out=False)
    seen = 0
    for n in fires:
        t.send("fire %d" % n)
        seen = len(tr.out)
        wait_out(tr, seen + 1)
    time.sleep(0.5)
    tr.listed = json.loads(run(["list", "-p", str(t.pid), "--json"]).stdout)
    tr.finish()
    t.stop()
    return tr


def replay(args):
    return run(["replay"] + args)


# -- a recorded run replays as it printed live ------------------------------
rec = os.path.join(TMP, "run.ptr")
tr = traced_run(rec, ["--json"])
tap.eq(tr.rc, 0, "trace --json --record: exit 0", tr.stderr)
live = [l for l in tr.stdout.splitlines() if l.startswith("{")]
fin = tr.final()
tap.eq(rows_by_key(agg_of(fin, "fixture:tick")), {(): sum(FIRES)},
       "live final: tick counted %d times" % sum(FIRES))
tap.ok(len(live) >= len(FIRES) + 1, "live: an interval per fire and the final",
       tr.stdout)
st = os.stat(rec)
tap.eq(st.st_mode & 0o777, 0o600, "the recording is 0600")
r = replay(["--json", rec])
tap.eq(r.returncode, 0, "replay --json: exit 0", r.stderr)
tap.eq(r.stdout.splitlines(), live,
       "replay --json prints trace's lines, interval by interval and final")
per = [sum(row["count"] for row in agg_of(json.loads(l),
                                           "fixture:tick")["rows"])
       for l in r.stdout.splitlines()[:-1]]
tap.eq(sorted(p for p in per if p), sorted(FIRES),
       "replayed intervals: tick counts of each fire", per)
tap.eq([l for l in r.stderr.splitlines()],
       [l.strip() for l in tr.stderr.splitlines()],
       "replay says trace's messages on stderr", r.stderr)
tap.eq(replay([rec, "--json"]).stdout, r.stdout,
       "replay FILE --json: options after the file too")

# -- an existing file is not overwritten ------------------------------------
size = os.path.getsize(rec)
r = run(["trace", "--record", rec, "-e", "fixture:tick", "--", EXE, "fire",
         "1"])
tap.ok(r.returncode != 0 and len(r.stderr.splitlines()) == 1 and
       "File exists" in r.stderr, "an existing recording: one line, exit "
       "non-zero", r.stderr)
tap.eq(os.path.getsize(rec), size, "the existing recording is untouched")

# -- names once ---------------------------------------------------------------
fr = frames(rec)
bodies = b"".join(b for _, _, b in fr)
tap.eq(bodies.count(b"fixture-string"), 1,
       "a string key counted in %d intervals is stored once" % len(FIRES))
tap.eq(bodies.count(b"__libc_start_main"), 1, "a stack's names once")
tap.eq(bodies.count(b"fixture:ints=quantize(arg0)"), 1, "a spec's text once")

# -- the probe list --------------------------------------------------------
plists = [record_probe_list(b) for _, ty, b in fr if ty == "P"]
want = listed_probes(tr.listed)
tap.eq(len(plists), 1, "one probe list: it did not change")
tap.ok(want and len({p[0] for p in want}) == 2 and
       {p[1] for p in want} == {"fixture", "fixlib"},
       "list -p: the fixture's and libsdtfix's probes (%d)" % len(want),
       want)
tap.eq(plists[0] if plists else None, want,
       "the 'P' record holds the probes list -p prints: object, name, "
       "args, argument count, semaphore, locations")
tap.eq([ty for _, ty, _ in fr][:2], ["T", "P"],
       "it follows the target record")

# -- cut, corrupt, foreign ----------------------------------------------------
ivals = [(at, body) for at, ty, body in fr if ty == "I"]
tap.ok(len(ivals) >= 3, "at least 3 interval records", [t for _, t, _ in fr])
cut = os.path.join(TMP, "cut.ptr")
second = ivals[1][0]
with open(rec, "rb") as f:
    data = f.read()
with open(cut, "wb") as f:
    f.write(data[:second + 30])
r = replay(["--json", cut])
tap.eq(r.returncode, 0, "a cut recording: exit 0", r.stderr)
tap.eq(r.stdout.splitlines(), live[:1],
       "a cut recording replays the interval before the cut")
err = [l for l in r.stderr.splitlines() if "recording ends" in l]
tap.eq(len(err), 1, "one message says where it ends", r.stderr)
tap.ok(err and ("byte %d" % second) in err[0] and "after interval 1" in err[0],
       "the message names the byte and the interval", r.stderr)

# ended at a record's end, with no final summary (its writer killed by
# SIGKILL, or a write failed): what it kept, and one line that says the
# end is missing
killed = os.path.join(TMP, "killed.ptr")
with open(killed, "wb") as f:
    f.write(data[:ivals[2][0]])
r = replay(["--json", killed])
tap.eq((r.returncode, r.stdout.splitlines()), (0, live[:2]),
       "a recording that ends between records replays what it kept, exit 0",
       r.stderr)
err = [l for l in r.stderr.splitlines() if "no final summary" in l]
tap.ok(len(err) == 1 and "ends after interval 2" in err[0] and
       "missing" in err[0],
       "one line says its end is missing, after interval 2", r.stderr)

bad = os.path.join(TMP, "bad.ptr")
flipped = bytearray(data)
flipped[second + 25] ^= 0x40
with open(bad, "wb") as f:
    f.write(flipped)
r = replay(["--json", bad])
tap.ok(r.returncode == 1 and r.stderr.splitlines()[-1].endswith(
    "bad checksum in the record at byte %d" % second),
    "a bad checksum: one line, exit 1", r.stderr)
tap.eq(r.stdout.splitlines(), live[:1], "what is before it replays")

r = replay(["--json", "/bin/sh"])
tap.eq((r.returncode, r.stderr),
       (1, "probetop: /bin/sh: not a probetop recording\n"),
       "a foreign file: one line, exit 1")
later = os.path.join(TMP, "later.ptr")
head = b"PTRECORD" + struct.pack("<HH", 2, 0)
with open(later, "wb") as f:
    f.write(head + struct.pack("<I", zlib.crc32(head)) + data[16:])
r = replay(["--json", later])
tap.eq((r.returncode, r.stderr.strip()),
       (1, "probetop: %s: recording format 2.0; this probetop reads "
        "format 1" % later), "a later format: one line, exit 1")
r = replay([rec])
tap.eq(r.returncode, 2, "replay without --json or --folded: exit 2", r.stderr)
r = replay(["--json", os.path.join(TMP, "none.ptr")])
tap.eq((r.returncode, len(r.stderr.splitlines())), (1, 1),
       "a missing file: one line, exit 1", r.stderr)

# -- folded -------------------------------------------------------------------
rec2 = os.path.join(TMP, "folded.ptr")
tr = traced_run(rec2, ["--folded"], specs=["fixture:tick=count(ustack)",
                                          "fixture:str=count(str(arg0),ustack)",
                                          "fixture:tick"])
r = replay(["--folded", rec2])
tap.ok(tr.rc == 0 and "fixture-string;" in tr.stdout, "trace --folded",
       tr.stderr)
tap.eq(r.stdout, tr.stdout, "replay --folded prints trace --folded's stacks")

# -- -b: each row's pid and command ------------------------------------------
rec3 = os.path.join(TMP, "binary.ptr")
tr = Trace(["-b", EXE, "-i", "0.4", "--record", rec3, "-e",
            "fixture:ints=count(arg3)", "-e",
            "fixture:str=quantize(arg1, str(arg0))"])
for n in (20, 30):
    subprocess.run([EXE, "fire", str(n)], check=True)
    time.sleep(0.5)
tr.finish()
live = [l for l in tr.stdout.splitlines() if l.startswith("{")]
cmds = {(r["pid"], r["command"]) for r in agg_of(tr.final(),
        "fixture:ints=count(arg3)")["rows"]}
tap.eq(sorted(c for _, c in cmds), ["sdt_target fire 20", "sdt_target fire 30"],
       "-b: two processes, each row with its pid's command", cmds)
r = replay(["--json", rec3])
tap.eq(r.stdout.splitlines(), live,
       "-b: replay --json prints trace's lines, pids and commands")

# -- a library dlopen()ed later: the list written again -----------------------
lib = os.path.join(FIXTURE_DIR, "libsdtfix.so")
dl = os.path.join(TMP, "dl.py")
dlopen_script(dl, lib)
rec4 = os.path.join(TMP, "dlopen.ptr")
t = Target(["/usr/bin/python3", dl])
tr = Trace(["-p", str(t.pid), "-i", "0.3", "--record", rec4, "-e",
            "fixlib:call"])
time.sleep(0.7)
tap.eq(t.send("load").strip(), "loaded", "dlopen done")
trace_wait_err(tr, "more locations")
time.sleep(0.7)
after = listed_probes(json.loads(run(["list", "-p", str(t.pid),
                                      "--json"]).stdout))
tr.finish()
t.stop()
fr = frames(rec4)
plists = [record_probe_list(b) for _, ty, b in fr if ty == "P"]
mine = [p for p in after if p[0] == lib or p[0].endswith("/libsdtfix.so")]
tap.eq(len(plists), 2, "dlopen: a second probe list", [t for _, t, _ in fr])
tap.ok(len(plists) == 2 and len(mine) == 2 and plists[1] ==
       sorted(plists[0] + mine),
       "the second adds the library's %d probes to the first's %d" %
       (len(mine), len(plists[0]) if plists else 0), plists)
tap.eq(plists[-1] if plists else None, after,
       "the last list is the one list -p prints after the dlopen")
types = "".join(ty for _, ty, _ in fr)
tap.ok(types.count("P") == 2 and types.index("P", types.index("P") + 1) <
       types.rindex("I"), "it comes before the intervals after the load",
       types)

# -- a full disk ----------------------------------------------------------------
mnt = os.path.join(TMP, "small")
os.mkdir(mnt)
mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "none",
                          mnt]).returncode == 0
tap.ok(mounted, "a 64k tmpfs")
if mounted:
    try:
        # leave about a page free
        with open(os.path.join(mnt, "fill"), "wb") as f:
            f.write(b"\0" * (60 * 1024))
        full = os.path.join(mnt, "full.ptr")
        tr = traced_run(full, ["--json"], fires=[100] * 12)
        live = [l for l in tr.stdout.splitlines() if l.startswith("{")]
        errs = [l for l in tr.stderr.splitlines() if "--record" in l]
        tap.eq(tr.rc, 0, "trace goes on to its end: exit 0", tr.stderr)
        tap.eq(len(errs), 1, "one message stops the recording", tr.stderr)
        tap.ok(errs and "No space left on device" in errs[0] and
               "tracing goes on" in errs[0], "it says the disk is full",
               tr.stderr)
        tap.eq(rows_by_key(agg_of(tr.final(), "fixture:tick")), {(): 1200},
               "trace's final totals are whole")
        r = replay(["--json", full])
        got = r.stdout.splitlines()
        tap.ok(r.returncode == 0 and 0 < len(got) < len(live) and
               got == live[:len(got)],
               "the recording replays the intervals written before the "
               "disk filled (%d of %d)" % (len(got), len(live)), r.stderr)
        tap.ok("no final summary: the recording ends after interval "
               "%d" % len(got) in r.stderr,
               "and says that its end is missing", r.stderr)
    finally:
        subprocess.run(["umount", mnt])
shutil.rmtree(TMP, ignore_errors=True)
tap.done()

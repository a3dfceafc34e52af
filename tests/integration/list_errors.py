# SPDX-License-Identifier: MIT
"""Bad input to probetop list, and bad options to every command: one clear
line on stderr, the right exit status, never a crash; a process without
probes is not an error."""

import os
import shutil
import struct
import subprocess
import tempfile

from tap import FIXTURE_DIR, Tap, Target, need_root, run, PROBETOP

tap = Tap()
need_root(tap)
tmp = tempfile.mkdtemp(prefix="probetop-")


def expect(args, status, message, what, **kw):
    r = run(args, **kw)
    tap.eq(r.returncode, status, what + ": exit %d" % status)
    tap.eq(r.stderr, "probetop: " + message + "\n", what + ": message")
    return r


expect(["list", "-p", "2147483647"], 1,
       "pid 2147483647: no such process", "a pid that does not exist")
expect(["list", "-p", "12ab"], 2, "-p '12ab': not a process id",
       "a pid that is not a number")
expect(["list"], 2, "list: give exactly one of -p PID or -b BINARY",
       "neither -p nor -b")
expect(["list", "-p", "1", "-b", "/bin/sh"], 2,
       "list: give exactly one of -p PID or -b BINARY", "both -p and -b")
expect(["list", "-x"], 2, "list: unknown option '-x'; see probetop --help",
       "an unknown option")
expect(["list", "-p"], 2, "list: option '-p' needs a value",
       "-p without a value")
expect(["list", "-b", "/etc/passwd"], 1, "/etc/passwd: not an ELF file",
       "a file that is not ELF")
expect(["list", "-b", "/nonexistent/x"], 1,
       "/nonexistent/x: No such file or directory", "a missing file")
expect(["list", "-b", "no-such-thing-xyz"], 1,
       "no-such-thing-xyz: no such file (looked in $PATH and the library "
       "directories)", "a bare name found nowhere")
expect(["list", "-b", "/"], 1, "/: not a regular file", "a directory")
# trace -b says the same in one line
expect(["trace", "-b", "/etc/passwd", "-e", "a:b"], 1,
       "/etc/passwd: not an ELF file", "trace -b: a file that is not ELF")
expect(["trace", "-b", "/nonexistent/x", "-e", "a:b"], 1,
       "/nonexistent/x: No such file or directory", "trace -b: a missing file")
expect(["trace", "-b", "/", "-e", "a:b"], 1, "/: not a regular file",
       "trace -b: a directory")
expect(["bogus"], 2, "unknown command 'bogus'; see probetop --help",
       "an unknown command")
# every command says what was wrong with an option the same way
expect(["trace", "--bogus"], 2,
       "trace: unknown option '--bogus'; see probetop --help",
       "trace: an unknown long option")
expect(["trace", "-p", "1", "-jx"], 2,
       "trace: unknown option '-x'; see probetop --help",
       "trace: an unknown short option in a cluster")
expect(["trace", "-e"], 2, "trace: option '-e' needs a value",
       "trace: -e without a value")
expect(["trace", "--json=yes", "-p", "1"], 2,
       "trace: option '--json' takes no value", "trace: --json=VALUE")
expect(["trace", "--aggsize", "12q", "-p", "1"], 2,
       "--aggsize: '12q' is not a size (e.g. 64m, 1g)",
       "trace: --aggsize that is not a size")
expect(["trace", "--aggsize", "512k", "-p", "1"], 2,
       "--aggsize: '512k' is not between 1m and 1t",
       "trace: --aggsize below 1m")
expect(["--aggsize", "2t", "-p", "1"], 2,
       "--aggsize: '2t' is not between 1m and 1t",
       "the console: --aggsize above 1t")
expect(["trace", "-i", "2s", "-p", "1"], 2,
       "-i: '2s' is not a number of seconds", "trace: -i that is not a number")
expect(["trace", "-i", "0.001", "-p", "1"], 2,
       "-i: '0.001' is below 0.01 seconds, the shortest interval",
       "trace: -i below 10 ms")
expect(["-i", "0.009", "-p", "1"], 2,
       "-i: '0.009' is below 0.01 seconds, the shortest interval",
       "the console: -i below 10 ms")
expect(["trace", "-d", "0", "-p", "1"], 2,
       "-d: '0' is not above 0 and at most a year (31536000)",
       "trace: -d 0")
expect(["-i", "1e9", "-p", "1"], 2,
       "-i: '1e9' is not above 0 and at most a year (31536000)",
       "the console: -i too long")
expect(["trace", "--aggsize"], 2, "trace: option '--aggsize' needs a value",
       "trace: --aggsize without a value")
expect(["-Z"], 2, "unknown option '-Z'; see probetop --help",
       "the console: an unknown option")
expect(["--pid"], 2, "option '--pid' needs a value",
       "the console: --pid without a value")
expect(["probesets", "--x"], 2,
       "probesets: unknown option '--x'; see probetop --help",
       "probesets: an unknown option")

# broken notes: a copy of the fixture with the first note's size wrecked
src = os.path.join(FIXTURE_DIR, "sdt_target")
bad = os.path.join(tmp, "broken")
shutil.copy(src, bad)
sh = subprocess.run(["readelf", "-SW", src], capture_output=True, text=True)
off = [int(l.split()[4], 16) for l in sh.stdout.splitlines()
       if ".note.stapsdt" in l][0]
with open(bad, "r+b") as f:
    f.seek(off + 4)
    f.write(struct.pack("<I", 0x10000))
expect(["list", "-b", bad], 1,
       "%s: bad note at offset 0: descriptor size 0x10000 runs past the "
       "section end" % bad, "broken notes")

# a process without probes: say so, exit 0
t = Target([os.path.join(FIXTURE_DIR, "noprobes")])
try:
    r = run(["list", "-p", str(t.pid)])
    tap.eq(r.returncode, 0, "a process without probes: exit 0")
    tap.eq(r.stdout, "", "a process without probes: nothing on stdout")
    tap.ok(r.stderr.startswith("probetop: pid %d: no USDT probes in its "
                               % t.pid)
           and "built without <sys/sdt.h> probes" in r.stderr
           and "list --functions" in r.stderr and r.stderr.count("\n") == 1,
           "a process without probes: one line with the likely reason",
           r.stderr)
    r = run(["list", "-p", str(t.pid), "--json"])
    tap.eq((r.returncode, r.stdout), (0, "[]\n"), "--json prints []")
finally:
    t.stop()

# ...and for a Python without probes, names the configure flag
fake = os.path.join(tmp, "python3.99")
shutil.copy(os.path.join(FIXTURE_DIR, "noprobes"), fake)
t = Target([fake])
try:
    r = run(["list", "-p", str(t.pid)])
    tap.ok("this Python was built without --with-dtrace" in r.stderr,
           "a Python without probes: names --with-dtrace", r.stderr)
finally:
    t.stop()

# not root: one sentence on how to run it
r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                    "--clear-groups", PROBETOP, "list", "-p", "1"],
                   capture_output=True, text=True)
tap.eq(r.returncode, 1, "not allowed: exit 1")
tap.eq(r.stderr, "probetop: pid 1: not allowed to read its memory maps; run "
       "probetop as root (or with CAP_SYS_PTRACE)\n", "not allowed: message")

# a target that exits while we look is "no such process", never a crash
for _ in range(20):
    p = subprocess.Popen(["/bin/true"])
    r = run(["list", "-p", str(p.pid)])
    p.wait()
    if not tap.ok(r.returncode in (0, 1) and "Traceback" not in r.stderr
                  and r.returncode >= 0, "a short-lived target", r.stderr):
        break
shutil.rmtree(tmp)
tap.done()

# SPDX-License-Identifier: MIT
"""Frames no file's symbol table names (issue 34):

- the vDSO: profile:999=count(ustack) (--budget off: every sample)
  while the foreign fixture calls clock_gettime() for a second: some
  700 samples here, those in the vDSO ending
  main;spin_clock;<libc's clock_gettime>;<a symbol of the vDSO's own
  .dynsym> (read here from the process's memory by readelf), or on to a
  function of the vDSO that no symbol names ([vdso]+0x<offset>), and no
  frame is left an address;
- a library with no symbols and no debug file (the fixture libnosyms.so,
  linked -s; its probe nosyms:hit fired 3 times by one path, 4 by
  another, in two intervals): the counts exact, its static functions
  named libnosyms.so+0x<file offset> (the leaf at the probe's), and
  probetop says once, however many of its stacks it names, that no
  symbols name them and that no installed package holds it;
- Debian's zlib (stripped, no zlib1g-dbgsym here): a profile of the
  fixture compressing, and the one line saying that installing
  zlib1g-dbgsym, the debug symbols of package zlib1g, would name its
  frames."""

import os
import re
import subprocess
import tempfile
import time

from tap import (FIXTURE_DIR, Tap, Target, Trace, agg_of, file_offset,
                 need_root, readelf_probes, wait_mapped)

tap = Tap()
need_root(tap)

FOREIGN = os.path.join(FIXTURE_DIR, "foreign")
NOSYMS = os.path.join(FIXTURE_DIR, "nosyms_main")
LIBNOSYMS = os.path.join(FIXTURE_DIR, "libnosyms.so")
NOSPEC = "nosyms:hit=count(ustack)"
PROFILE = "profile:999=count(ustack)"
PROFILE99 = "profile:99=count(ustack)"


def from_main(frames):
    """The frames from main on."""
    return tuple(frames[frames.index("main"):]) if "main" in frames \
        else tuple(frames)


def totals(agg):
    """{frames from main: total} of an aggregation."""
    got = {}
    for r in agg["rows"] if agg else []:
        k = from_main(r["key"][0])
        got[k] = got.get(k, 0) + r["total"]
    return got


def vdso_names(pid):
    """The names of the .dynsym of pid's vDSO, its image read from the
    process's memory into a file for readelf."""
    with open("/proc/%d/maps" % pid) as f:
        line = next(l for l in f if l.rstrip().endswith("[vdso]"))
    lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
    with open("/proc/%d/mem" % pid, "rb") as f:
        f.seek(lo)
        img = f.read(hi - lo)
    with tempfile.NamedTemporaryFile(suffix=".so") as tmp:
        tmp.write(img)
        tmp.flush()
        out = subprocess.run(["readelf", "--dyn-syms", "-W", tmp.name],
                             capture_output=True, text=True).stdout
    names = set()
    for l in out.splitlines():
        parts = l.split()
        if len(parts) == 8 and parts[3] == "FUNC":
            names.add(parts[7].split("@")[0])
    return names


# -- the vDSO ---------------------------------------------------------
t = Target([FOREIGN])
names = vdso_names(t.pid)
tap.ok("__vdso_clock_gettime" in names, "the vDSO's .dynsym read",
       sorted(names))
tr = Trace(["-p", str(t.pid), "-i", "60", "--budget", "off", "-e", PROFILE])
tap.ok(t.send("clock 1").startswith("spun"), "the fixture spun 1 s")
time.sleep(0.2)
tr.finish()
t.stop()
got = totals(agg_of(tr.final(), PROFILE))
allf = {f for k in got for f in k}
n = sum(got.values())
# where the clock is kvm-clock without a stable TSC, the vDSO's
# clock_gettime calls on to a function of its own .dynsym does not name
# (named [vdso]+0x<offset>): a frame below the named one
invdso = sum(c for k, c in got.items()
             if len(k) >= 4 and k[:2] == ("main", "spin_clock") and
             k[3] in names and
             all(f.startswith("[vdso]+0x") for f in k[4:]))
tap.ok(n >= 300 and invdso >= n / 5,
       "profile:999: %d of %d samples on main;spin_clock;<libc>;<a vDSO "
       "symbol>" % (invdso, n), got)
tap.ok(not [f for f in allf if f.startswith("0x")],
       "no frame left an address", sorted(allf))

# -- a library without symbols: said once -----------------------------
probe = [p for p in readelf_probes(LIBNOSYMS) if p[:2] == ("nosyms", "hit")]
leaf = "libnosyms.so+0x%x" % file_offset(LIBNOSYMS, probe[0][2])
t = Target([NOSYMS])
tr = Trace(["-p", str(t.pid), "-i", "1", "-e", NOSPEC],
           env=dict(os.environ, PROBETOP_DEBUG_DIRS="/nonexistent"))
tap.eq(t.send("a 3").strip(), "fired 3", "path a fired")
time.sleep(2.2)  # its stack named in an interval of its own
tap.eq(t.send("b 4").strip(), "fired 4", "path b fired")
time.sleep(1.5)
tr.finish()
t.stop()
got = totals(agg_of(tr.final(), NOSPEC))
shape = re.compile(r"^libnosyms\.so\+0x[0-9a-f]+$")
mids = sorted(k[2] for k in got)
tap.ok(sorted(got.values()) == [3, 4] and
       all(len(k) == 4 and k[:2] == ("main", "nosyms_fire") and
           shape.match(k[2]) and k[3] == leaf for k in got) and
       mids[0] != mids[1],
       "two stacks, 3 and 4 hits, main;nosyms_fire;libnosyms.so+0x...;"
       "%s" % leaf, got)
said = [l for l in tr.stderr.splitlines() if "libnosyms.so: no symbols" in l]
tap.eq(len(said), 1, "said once, for both stacks", tr.stderr)
tap.ok(said and said[0].endswith(
    "libnosyms.so: no symbols and no debug file; its frames stay "
    "libnosyms.so+0x... (no installed package holds it)"),
       "no package holds it", said)

# -- Debian's zlib: the package that would name it --------------------
t = Target([FOREIGN])
libz = wait_mapped(t.pid, "libz.so")
bid = subprocess.run(["readelf", "-n", libz], capture_output=True,
                     text=True).stdout.split("Build ID:")[-1].split()[0]
if os.path.exists("/usr/lib/debug/.build-id/%s/%s.debug" %
                  (bid[:2], bid[2:])):
    tap.skip("zlib's debug package", "zlib1g-dbgsym is installed")
    t.stop()
else:
    tr = Trace(["-p", str(t.pid), "-i", "1", "-e", PROFILE99])
    tap.ok(t.send("deflate 2.5").startswith("deflated"),
           "the fixture compressed for 2.5 s")
    time.sleep(0.2)
    tr.finish()
    t.stop()
    base = os.path.basename(libz)
    got = totals(agg_of(tr.final(), PROFILE99))
    allf = {f for k in got for f in k}
    tap.ok([f for f in allf if f.startswith(base + "+0x")] and
           "compress2" in allf,
           "zlib's static functions as %s+0x..., compress2 named" % base,
           sorted(allf))
    said = [l for l in tr.stderr.splitlines()
            if "%s: no symbols" % base in l]
    tap.eq(len(said), 1, "zlib: said once", tr.stderr)
    tap.ok(said and said[0].endswith(
        "installing zlib1g-dbgsym (the debug symbols of package zlib1g) "
        "would name them"), "zlib: zlib1g-dbgsym would name them", said)

tap.done()

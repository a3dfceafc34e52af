# SPDX-License-Identifier: MIT
"""probetop list on the fixtures: -b and -p agree exactly with readelf -n,
text and JSON, patterns, -v, --functions; the fixture has the argument
forms the decoder must handle (index register, %rip symbol, constant)."""

import json
import os
import shutil
import tempfile

from tap import (FIXTURE_DIR, Tap, Target, json_locations, need_root,
                 readelf_probes, run)

tap = Tap()
need_root(tap)
exe = os.path.join(FIXTURE_DIR, "sdt_target")
lib = os.path.join(FIXTURE_DIR, "libsdtfix.so")

# the fixture really has the operand forms we claim to decode
ref = readelf_probes(exe)
args = {name: a for (_, name, _, _, a) in ref}
tap.eq(len(ref), 15, "readelf sees 15 notes in sdt_target")
tap.ok("(%" in args["indexed"] and "," in args["indexed"],
       "fixture:indexed has an index-register operand", args["indexed"])
tap.ok("fixture_global(%rip)" in args["global"],
       "fixture:global has a %rip-relative operand", args["global"])
tap.eq(args["konst"], "-4@$42", "fixture:konst is a constant operand")
tap.ok("(%rdi)" in args["field"], "fixture:field is off(%reg)", args["field"])

# -b, JSON: every location, address, semaphore and argument string
for path in (exe, lib):
    r = run(["list", "-b", path, "--json"])
    tap.eq(r.returncode, 0, "list -b %s --json exits 0" % path)
    got = json_locations(json.loads(r.stdout))
    tap.eq(got, readelf_probes(path), "list -b %s agrees with readelf -n"
           % os.path.basename(path))

# -b, text: one line per probe, multi's three locations folded
r = run(["list", "-b", exe])
lines = r.stdout.splitlines()
tap.eq(len(lines), 13, "text: one line per probe (13)")
multi = [l.split() for l in lines if l.split()[1] == "multi"][0]
tap.ok(multi[3].endswith("(3)"), "multi shows its 3 locations", multi)
sem = [l.split() for l in lines if l.split()[1] == "sem"][0]
tap.ok(sem[4].startswith("0x"), "sem shows its semaphore", sem)
tick = [l.split() for l in lines if l.split()[1] == "tick"][0]
tap.eq(tick[4:], ["-"], "tick: no semaphore, no arguments")
ints = [l for l in lines if l.split()[1] == "ints"][0]
tap.ok(ints.rstrip().endswith(args["ints"]), "ints shows its raw args", ints)

# pattern and -v
r = run(["list", "-b", exe, "-v", "fixture:mul*"])
tap.eq(r.returncode, 0, "pattern fixture:mul* exits 0")
tap.eq(r.stdout.count("location "), 3, "-v prints the 3 locations of multi")
tap.eq(r.stdout.count("arg0  s64 %rdi"), 3, "-v decodes multi's argument")
r = run(["list", "-b", exe, "-v", "indexed"])
tap.ok("arg0  s64 *(%" in r.stdout and "*8)" in r.stdout,
       "-v decodes the index-register operand", r.stdout)
r = run(["list", "-b", exe, "-v", "global"])
tap.ok("*(fixture_global+0)  " in r.stdout and "@0x" in r.stdout,
       "-v resolves the %rip symbol", r.stdout)
r = run(["list", "-b", exe, "nomatch*"])
tap.eq(r.returncode, 1, "a pattern matching nothing exits 1")
tap.eq(r.stderr.strip(), "probetop: nothing matches 'nomatch*'",
       "and says so")

# -p: the executable and its shared library, exactly as readelf says
t = Target([exe])
try:
    r = run(["list", "-p", str(t.pid), "--json"])
    tap.eq(r.returncode, 0, "list -p PID --json exits 0")
    entries = json.loads(r.stdout)
    tap.eq(json_locations(entries, obj=exe), readelf_probes(exe),
           "list -p: sdt_target agrees with readelf -n")
    tap.eq(json_locations(entries, obj=lib), readelf_probes(lib),
           "list -p: libsdtfix.so agrees with readelf -n")
    tap.eq(len(entries), 15, "list -p: 15 probes in all")
    r = run(["list", "-p", str(t.pid), "fixlib:*"])
    tap.eq([l.split()[:3] for l in r.stdout.splitlines()],
           [["fixlib", "call", lib], ["fixlib", "ret", lib]],
           "list -p PID fixlib:* shows the library's probes")
    r = run(["list", "-p", str(t.pid), "--functions", "fire_*"])
    names = sorted(l.split()[1] for l in r.stdout.splitlines())
    tap.eq(names, ["fire_field", "fire_global", "fire_indexed.constprop.0", "fire_ints",
                   "fire_multi0", "fire_multi1", "fire_multi2", "fire_sem"],
           "--functions lists the fixture's functions")
    r = run(["list", "-p", str(t.pid), "--functions", "--json",
             "sdtfix_call"])
    f = json.loads(r.stdout)
    tap.eq([(e["object"], e["name"], e["global"]) for e in f],
           [(lib, "sdtfix_call", True)],
           "--functions --json: one row per distinct symbol")
finally:
    t.stop()

# a deleted executable, and one only visible in another mount namespace:
# probetop opens what the process maps (/proc/PID/map_files), not the path
tmp = tempfile.mkdtemp(prefix="probetop-")
env = dict(os.environ, LD_LIBRARY_PATH=FIXTURE_DIR)  # $ORIGIN rpath breaks
gone = os.path.join(tmp, "sdt_target")
shutil.copy(exe, gone)
t = Target([gone], env=env)
try:
    os.unlink(gone)
    r = run(["list", "-p", str(t.pid), "--json"])
    tap.eq(r.returncode, 0, "deleted executable: exit 0")
    tap.eq(json_locations(json.loads(r.stdout), obj=gone), ref,
           "deleted executable: its probes, as readelf saw them")
finally:
    t.stop()
ns = os.path.join(tmp, "ns")
os.mkdir(ns)
t = Target(["unshare", "-m", "sh", "-c",
            "mount -t tmpfs none %s && cp %s %s/ && exec %s/sdt_target"
            % (ns, exe, ns, ns)], env=env)
try:
    tap.ok(not os.path.exists(os.path.join(ns, "sdt_target")),
           "mount namespace: the file is not visible from here")
    r = run(["list", "-p", str(t.pid), "--json"])
    tap.eq(json_locations(json.loads(r.stdout),
                          obj=os.path.join(ns, "sdt_target")), ref,
           "mount namespace: its probes, as readelf saw them")
finally:
    t.stop()
shutil.rmtree(tmp)
tap.done()

# SPDX-License-Identifier: MIT
"""probetop list -p on Debian's real runtimes agrees exactly with readelf -n
on the objects they map: python3.11 (the executable), ruby (libruby-3.1.so),
java (libjvm.so, 500+ probes, dlopened by the launcher); and list -b on
libstdc++."""

import glob
import json
import os

from tap import (Tap, Target, json_locations, need_root, readelf_probes,
                 run, wait_mapped)

tap = Tap()
need_root(tap)
here = os.path.dirname(os.path.abspath(__file__))


def check(tap, pid, fragment, what, minimum):
    path = wait_mapped(pid, fragment)
    if not tap.ok(path is not None, "%s maps %s" % (what, fragment)):
        return
    r = run(["list", "-p", str(pid), "--json"])
    tap.eq(r.returncode, 0, "list -p %s exits 0" % what)
    entries = json.loads(r.stdout)
    got = json_locations(entries, obj=path)
    ref = readelf_probes(path)
    tap.ok(len(ref) >= minimum, "readelf: %s has >= %d probe locations (%d)"
           % (path, minimum, len(ref)))
    tap.eq(got, ref, "list -p %s: %s agrees with readelf -n" % (what, path))
    r = run(["list", "-p", str(pid)])
    lines = [l for l in r.stdout.splitlines() if l.split()[2] == path]
    names = {(e["provider"], e["name"]) for e in entries
             if e["object"] == path}
    tap.eq(len(lines), len(names), "text: one line per %s probe" % what)


py = Target(["/usr/bin/python3.11", "-c",
             "import os, sys; print('ready', os.getpid(), flush=True); "
             "sys.stdin.read()"])
try:
    check(tap, py.pid, "/usr/bin/python3.11", "python3.11", 8)
    r = run(["list", "-p", str(py.pid), "python:function__*"])
    tap.eq([l.split()[:2] for l in r.stdout.splitlines()],
           [["python", "function__entry"], ["python", "function__return"]],
           "python:function__* matches entry and return")
    r = run(["list", "-p", str(py.pid), "function-*"])
    tap.eq([l.split()[:2] for l in r.stdout.splitlines()],
           [["python", "function__entry"], ["python", "function__return"]],
           "DTrace's function-* matches them too")
finally:
    py.stop()

rb = Target(["ruby", "-e",
             "STDOUT.sync = true; puts \"ready #{$$}\"; STDIN.read"])
try:
    check(tap, rb.pid, "libruby-3.1.so", "ruby", 40)
finally:
    rb.stop()

jv = Target(["java", "-Xshare:auto", os.path.join(here, "Wait.java")])
try:
    check(tap, jv.pid, "/libjvm.so", "java", 500)
finally:
    jv.stop()

stdcxx = sorted(glob.glob("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.*"))[-1]
r = run(["list", "-b", "libstdc++.so.6", "--json"])
tap.eq(r.returncode, 0, "list -b libstdc++.so.6 (a bare name) exits 0")
entries = json.loads(r.stdout)
tap.eq(json_locations(entries), readelf_probes(stdcxx),
       "list -b libstdc++.so.6 agrees with readelf -n")
tap.eq(sorted(e["name"] for e in entries), ["catch", "rethrow", "throw"],
       "libstdc++ has throw, rethrow and catch")
tap.done()

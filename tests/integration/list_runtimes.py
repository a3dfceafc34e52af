# SPDX-License-Identifier: MIT
"""probetop list -p on Debian's real runtimes agrees exactly with readelf -n
on the objects they map: python3.11 (the executable), ruby (libruby-3.1.so),
java (libjvm.so, 500+ probes, dlopened by the launcher); and list -b on
libstdc++. Which semaphores the code tests (the budget's price of a
probe that has one rests on it): on python3.11 and PostgreSQL 15's
postgres, exactly those an instruction other than LEA reads by its
address in objdump -d (postgres tests its lwlock probes' and not its
query probes'); the fixture's fixture:sem, none."""

import glob
import json
import os
import re
import subprocess

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


def read_sems(path):
    """The addresses that an instruction other than LEA of path's
    executable code reads, by objdump -d's comments (# ADDR <...>)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                         capture_output=True, text=True, check=True).stdout
    insn = re.compile(r"^\s*[0-9a-f]+:\s+(\S+)\s.*# ([0-9a-f]+) <")
    return {int(m.group(2), 16) for m in map(insn.match, out.splitlines())
            if m and m.group(1) != "lea"}


def check_tested(path, what, want_tested, want_untested):
    """list -b path's semaphore_tested, probe by probe, is what
    objdump says; want_*: probes that must be among each."""
    r = run(["list", "-b", path, "--json"])
    got = {e["name"]: [l["semaphore_tested"] for l in e["locations"]]
           for e in json.loads(r.stdout) if e["semaphore"]}
    read = read_sems(path)
    want = {e["name"]: [int(e["semaphore"], 16) in read] * len(
        e["locations"]) for e in json.loads(r.stdout) if e["semaphore"]}
    tap.eq(got, want, "%s: semaphore_tested as objdump -d reads them (%d "
           "probes with one, %d tested)" % (what, len(want), sum(
               any(v) for v in want.values())))
    tap.ok(all(all(got.get(n, [False])) for n in want_tested) and
           not any(any(got.get(n, [True])) for n in want_untested),
           "%s: %s tested, %s not" % (what, want_tested, want_untested),
           got)


check_tested("/usr/bin/python3.11", "python3.11",
             ["function__entry", "gc__start", "line"], [])
check_tested("/usr/lib/postgresql/15/bin/postgres", "postgres",
             ["lwlock__wait__start"], ["query__start", "query__done"])
check_tested(os.path.join(os.environ["FIXTURE_DIR"], "sdt_target"),
             "sdt_target", [], ["sem"])

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

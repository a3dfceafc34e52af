# SPDX-License-Identifier: MIT
"""The engine's CPython layouts (engine/name/pylayout.c) are the headers' own:
for every pyenv CPython 3.8 to 3.13 installed (and Debian's python3.11-dev
headers if present), tests/tools/pylayout_probe.c is compiled against its
headers and what it prints (offsetof, sizeof, the state bit-fields) must
equal what pylayout_dump prints of the table of that minor version. A
3.13 interpreter's own _Py_DebugOffsets (the table at the start of its
_PyRuntime, read with ctypes) must agree too: that checks the binary, not
only its headers. 3.7 and 3.14 have no layout.

Usage: pylayout_headers.py PYLAYOUT_DUMP PYLAYOUT_PROBE_C"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from tap import Tap

tap = Tap()
DUMP, PROBE_C = sys.argv[1:3]
PYENV = os.environ.get("PYENV_ROOT", "/root/.pyenv")
DEBIAN_311 = "/usr/include/python3.11"


def table(minor):
    """pylayout_dump's JSON of 3.minor (None when it has none)."""
    out = subprocess.run([DUMP, str(minor)], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def probe(inc, tmp):
    """pylayout_probe.c compiled against the headers in inc and run: its
    JSON, or (None, the compiler's or the probe's complaint)."""
    exe = os.path.join(tmp, "probe")
    cc = subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror",
                         "-DPy_BUILD_CORE", "-I" + inc,
                         "-I" + os.path.join(inc, "internal"), PROBE_C,
                         "-o", exe], capture_output=True, text=True)
    if cc.returncode != 0:
        return None, cc.stderr
    run = subprocess.run([exe], capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr
    return json.loads(run.stdout), ""


def diff(got, want, source="headers"):
    """The keys whose values differ, one line each."""
    return "\n".join("%s: %s %r, table %r" % (k, source, got.get(k),
                                              want.get(k))
                     for k in sorted(set(got) | set(want))
                     if got.get(k) != want.get(k))


def check_headers(what, inc, minor):
    with tempfile.TemporaryDirectory() as tmp:
        got, err = probe(inc, tmp)
    if got is None:
        tap.ok(False, what + ": pylayout_probe.c compiles and runs", err)
        return
    want = table(minor)
    tap.ok(got == want, what + ": headers agree with pylayout_find(%d)"
           % minor, diff(got, want or {}))


# _Py_DebugOffsets of 3.13 (Include/internal/pycore_runtime.h): after
# char cookie[8], every member is a uint64_t, in this order.
DEBUG_OFFSETS_313 = (
    "version free_threaded "
    "rt.size rt.finalizing rt.interpreters_head "
    "is.size is.id is.next is.threads_head is.gc is.imports_modules "
    "is.sysdict is.builtins is.ceval_gil is.gil_runtime_state "
    "is.gil_runtime_state_enabled is.gil_runtime_state_locked "
    "is.gil_runtime_state_holder "
    "ts.size ts.prev ts.next ts.interp ts.current_frame ts.thread_id "
    "ts.native_thread_id ts.datastack_chunk ts.status "
    "fr.size fr.previous fr.executable fr.instr_ptr fr.localsplus fr.owner "
    "co.size co.filename co.name co.qualname co.linetable co.firstlineno "
    "co.argcount co.localsplusnames co.localspluskinds co.co_code_adaptive "
    "ob.size ob.ob_type ty.size ty.tp_name ty.tp_repr ty.tp_flags "
    "tu.size tu.ob_item tu.ob_size li.size li.ob_item li.ob_size "
    "di.size di.ma_keys di.ma_values fl.size fl.ob_fval "
    "lo.size lo.lv_tag lo.ob_digit by.size by.ob_size by.ob_sval "
    "un.size un.state un.length un.asciiobject_size").split()

# the table's fields as _Py_DebugOffsets names them
DEBUG_FIELDS = {
    "runtime_interp_head": "rt.interpreters_head",
    "interp_tstate_head": "is.threads_head",
    "tstate_next": "ts.next",
    "tstate_native_id": "ts.native_thread_id",
    "tstate_frame": "ts.current_frame",
    "tstate_thread_id": "ts.thread_id",
    "frame_back": "fr.previous",
    "frame_code": "fr.executable",
    "frame_lasti": "fr.instr_ptr",
    "frame_owner": "fr.owner",
    "code_filename": "co.filename",
    "code_name": "co.name",
    "code_qualname": "co.qualname",
    "code_linetable": "co.linetable",
    "code_firstlineno": "co.firstlineno",
    "code_code_adaptive": "co.co_code_adaptive",
    "bytes_size": "by.ob_size",
    "bytes_sval": "by.ob_sval",
    "unicode_state": "un.state",
    "unicode_length": "un.length",
    "unicode_ascii_data": "un.asciiobject_size",
}

READ_DEBUG_OFFSETS = """
import ctypes, json, sys
a = ctypes.addressof(ctypes.c_char.in_dll(ctypes.pythonapi, "_PyRuntime"))
names = sys.argv[1:]
print(json.dumps({"cookie": ctypes.string_at(a, 8).decode("latin-1"),
                  **{n: ctypes.c_uint64.from_address(a + 8 + 8 * i).value
                     for i, n in enumerate(names)}}))
"""


def check_debug_offsets(what, exe):
    run = subprocess.run([exe, "-c", READ_DEBUG_OFFSETS] + DEBUG_OFFSETS_313,
                         capture_output=True, text=True)
    if not tap.ok(run.returncode == 0, what + ": _Py_DebugOffsets read",
                  run.stderr):
        return
    dbg = json.loads(run.stdout)
    if not tap.ok(dbg["cookie"] == "xdebugpy" and
                  dbg["version"] >> 16 == 0x030d and
                  dbg["free_threaded"] == 0,
                  what + ": _PyRuntime starts with 3.13's _Py_DebugOffsets",
                  repr(dbg)):
        return
    want = table(13)
    got = {k: dbg[d] for k, d in DEBUG_FIELDS.items()}
    tap.ok(all(want[k] == v for k, v in got.items()),
           what + ": the interpreter's _Py_DebugOffsets agree with "
           "pylayout_find(13)",
           diff(got, {k: want[k] for k in got}, "_Py_DebugOffsets"))


def pyenv_versions():
    """(minor, version, prefix) of every pyenv CPython 3.8 to 3.13, in
    version order."""
    found = []
    for prefix in glob.glob(os.path.join(PYENV, "versions", "3.*.*")):
        m = re.fullmatch(r"3\.(\d+)\.(\d+)", os.path.basename(prefix))
        if m and 8 <= int(m.group(1)) <= 13:
            found.append((int(m.group(1)), int(m.group(2)),
                          os.path.basename(prefix), prefix))
    return [(minor, v, p) for minor, _, v, p in sorted(found)]


versions = pyenv_versions()
if not versions:
    tap.skip("pyenv CPythons", "no 3.8 to 3.13 under " + PYENV)
for minor, version, prefix in versions:
    inc = os.path.join(prefix, "include", "python3.%d" % minor)
    check_headers("%s (pyenv)" % version, inc, minor)
    exe = os.path.join(prefix, "bin", "python3.%d" % minor)
    if minor == 13 and os.access(exe, os.X_OK):
        check_debug_offsets("%s (pyenv)" % version, exe)

if os.path.isfile(os.path.join(DEBIAN_311, "internal", "pycore_frame.h")):
    check_headers("Debian python3.11-dev", DEBIAN_311, 11)
else:
    tap.skip("Debian python3.11-dev", "no " + DEBIAN_311 + "/internal")

for minor in (7, 14):
    tap.eq(table(minor), None, "pylayout_find(%d) is NULL" % minor)

tap.done()

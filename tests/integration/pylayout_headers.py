# SPDX-License-Identifier: MIT
"""The engine's CPython layouts (engine/name/pylayout.c) are the headers' own:
for every pyenv CPython 3.8 to 3.13 installed (and Debian's python3.11-dev
headers if present, and sid's CPython 3.14 in the root scripts/setup
--runtimes builds), tests/tools/pylayout_probe.c is compiled against its
headers and what it prints (offsetof, sizeof, the state bit-fields) must
equal what pylayout_dump prints of the table of that minor version. A
3.13 and a 3.14 interpreter's own _Py_DebugOffsets (the table at the
start of its _PyRuntime, read with ctypes) must agree too: that checks
the binary, not only its headers. 3.7 and 3.15 have no layout.

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
SID = os.environ.get("PROBETOP_ROOTS", "/var/cache/probetop/roots") + "/sid"


def table(minor):
    """pylayout_dump's JSON of 3.minor (None when it has none)."""
    out = subprocess.run([DUMP, str(minor)], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def probe(inc, tmp, more=()):
    """pylayout_probe.c compiled against the headers in inc (and the
    directories more) and run: its JSON, or (None, the compiler's or the
    probe's complaint). The headers are system ones to the compiler: a
    warning in CPython's own (3.14's unused parameters) is not the
    probe's."""
    exe = os.path.join(tmp, "probe")
    cc = subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror",
                         "-DPy_BUILD_CORE", "-isystem", inc,
                         "-isystem", os.path.join(inc, "internal")] +
                        [a for d in more for a in ("-isystem", d)] +
                        [PROBE_C, "-o", exe],
                        capture_output=True, text=True)
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


def check_headers(what, inc, minor, root=None):
    """The probe against inc, of a CPython 3.minor; of one in a root
    (another Debian's), whose pyconfig.h it finds under the root's
    multiarch directory, never the root's libc headers."""
    with tempfile.TemporaryDirectory() as tmp:
        more = []
        if root:
            arch = os.path.join(tmp, "inc", "x86_64-linux-gnu")
            os.makedirs(arch)
            os.symlink(os.path.join(root, "usr/include/x86_64-linux-gnu",
                                    "python3.%d" % minor),
                       os.path.join(arch, "python3.%d" % minor))
            more = [os.path.join(tmp, "inc")]
        got, err = probe(inc, tmp, more)
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

# 3.14's (Include/internal/pycore_debug_offsets.h): a few members more
DEBUG_OFFSETS_314 = (
    "version free_threaded "
    "rt.size rt.finalizing rt.interpreters_head "
    "is.size is.id is.next is.threads_head is.threads_main is.gc "
    "is.imports_modules is.sysdict is.builtins is.ceval_gil "
    "is.gil_runtime_state is.gil_runtime_state_enabled "
    "is.gil_runtime_state_locked is.gil_runtime_state_holder "
    "is.code_object_generation is.tlbc_generation "
    "ts.size ts.prev ts.next ts.interp ts.current_frame ts.thread_id "
    "ts.native_thread_id ts.datastack_chunk ts.status "
    "fr.size fr.previous fr.executable fr.instr_ptr fr.localsplus fr.owner "
    "fr.stackpointer fr.tlbc_index "
    "co.size co.filename co.name co.qualname co.linetable co.firstlineno "
    "co.argcount co.localsplusnames co.localspluskinds co.co_code_adaptive "
    "co.co_tlbc ob.size ob.ob_type ty.size ty.tp_name ty.tp_repr "
    "ty.tp_flags tu.size tu.ob_item tu.ob_size li.size li.ob_item "
    "li.ob_size se.size se.used se.table se.mask "
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


def check_debug_offsets(what, argv, minor):
    """The _Py_DebugOffsets of the CPython 3.minor that argv runs."""
    names = DEBUG_OFFSETS_313 if minor == 13 else DEBUG_OFFSETS_314
    run = subprocess.run(argv + ["-c", READ_DEBUG_OFFSETS] + names,
                         capture_output=True, text=True)
    if not tap.ok(run.returncode == 0, what + ": _Py_DebugOffsets read",
                  run.stderr):
        return
    dbg = json.loads(run.stdout)
    if not tap.ok(dbg["cookie"] == "xdebugpy" and
                  dbg["version"] >> 16 == 0x0300 | minor and
                  dbg["free_threaded"] == 0,
                  what + ": _PyRuntime starts with 3.%d's _Py_DebugOffsets"
                  % minor, repr(dbg)):
        return
    want = table(minor)
    got = {k: dbg[d] for k, d in DEBUG_FIELDS.items()}
    tap.ok(all(want[k] == v for k, v in got.items()),
           what + ": the interpreter's _Py_DebugOffsets agree with "
           "pylayout_find(%d)" % minor,
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
        check_debug_offsets("%s (pyenv)" % version, [exe], 13)

if os.path.isfile(os.path.join(DEBIAN_311, "internal", "pycore_frame.h")):
    check_headers("Debian python3.11-dev", DEBIAN_311, 11)
else:
    tap.skip("Debian python3.11-dev", "no " + DEBIAN_311 + "/internal")

# sid's 3.14, in the root scripts/setup --runtimes builds (a skip is a
# failure where CI runs: scripts/test builds it)
SID_INC = os.path.join(SID, "usr/include/python3.14")
if os.path.isfile(os.path.join(SID_INC, "internal", "pycore_interpframe.h")):
    check_headers("sid python3.14-dev", SID_INC, 14, SID)
    check_debug_offsets("sid python3.14", ["chroot", SID, "python3.14"], 14)
else:
    tap.ok(False, "sid's CPython 3.14 headers", "no " + SID_INC +
           ": scripts/setup --runtimes builds them")

for minor in (7, 15):
    tap.eq(table(minor), None, "pylayout_find(%d) is NULL" % minor)

tap.done()

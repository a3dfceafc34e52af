# SPDX-License-Identifier: MIT
"""Frames named from symbols kept outside a stripped file
(engine/find/debugfile.h), on copies of the stacks fixture (static
functions, frame pointers) stripped of every symbol but .dynsym, its
probe stk:leaf fired 3, 5 and 7 times by three known paths:

- stripped, no debug file anywhere: the static functions have no name
  (the frames are "stacks-…+0x…"), the counts exact;
- its debug file by build ID, under a directory of $PROBETOP_DEBUG_DIRS
  (.build-id/xx/yyyy.debug): main;run;path_a;mid;leaf... named;
- by .gnu_debuglink in .debug/ beside it: named, and its static
  functions listed by list --functions and traced by fn:; the same link
  with a debug file whose CRC-32 does not match (another build's): not
  used;
- by MiniDebugInfo (.gnu_debugdata, xz): named;
- a profile sample of a process in Debian's libc, in a function that
  only libc6-dbg's debug file (by build ID under /usr/lib/debug) names:
  qsort's msort_with_tmp."""

import os
import subprocess
import tempfile
import time

from tap import FIXTURE_DIR, Tap, Target, Trace, agg_of, file_offset, \
    need_root, run

tap = Tap()
need_root(tap)

EXE = os.path.join(FIXTURE_DIR, "stacks")
USTACK = "stk:leaf=count(ustack)"
PATHS = {("main", "run", "path_a", "mid", "leaf"): 3,
         ("main", "run", "path_b", "mid", "leaf"): 5,
         ("main", "run", "path_c", "leaf"): 7}


def sh(*argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def build_id(path):
    """The GNU build ID of path, in hex (readelf -n)."""
    out = subprocess.run(["readelf", "-n", path], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split()[-1]
    return None


def stripped(tmp, name, debuglink=None):
    """A copy of the fixture at tmp/name without .symtab (and its
    debug file at debuglink, linked by .gnu_debuglink)."""
    path = os.path.join(tmp, name)
    if debuglink:
        sh("objcopy", "--only-keep-debug", EXE, debuglink)
        sh("objcopy", "--strip-all",
           "--add-gnu-debuglink=" + debuglink, EXE, path)
    else:
        sh("objcopy", "--strip-all", EXE, path)
    return path


def function_offset(path, name):
    """The file offset where function name of path (not stripped)
    begins: its symbol (nm), through its PT_LOAD segment (readelf -lW)."""
    nm = subprocess.run(["nm", path], check=True, capture_output=True,
                        text=True).stdout
    return file_offset(path, [int(l.split()[0], 16) for l in nm.splitlines()
                              if l.split()[-1] == name][0])


def fired(exe, env=None):
    """{frames from main: count} of USTACK on exe fired 3, 5, 7 times,
    and every frame seen; env: more of probetop's environment."""
    t = Target([exe])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", USTACK],
               env=dict(os.environ, **(env or {})))
    tap.eq(t.send("3 5 7").strip(), "fired 15", "%s fired" %
           os.path.basename(exe))
    time.sleep(0.3)
    tr.finish()
    t.stop()
    got, frames = {}, set()
    a = agg_of(tr.final(), USTACK)
    for r in a["rows"] if a else []:
        f = r["key"][0]
        frames |= set(f)
        i = f.index("main") if "main" in f else 0
        got[tuple(f[i:])] = got.get(tuple(f[i:]), 0) + r["total"]
    return got, frames


def named(what, exe, env=None):
    got, _ = fired(exe, env)
    tap.eq(got, PATHS, "%s: the three paths named from main to leaf, "
           "counted exactly" % what)


def functions_of_debug_file(exe):
    """A stripped file's static functions, named only by its debug file,
    are listed by list --functions and traced by fn: (mid: entered by
    path_a 3 times and path_b 5), as the console's picker offers them."""
    env = dict(os.environ, PROBETOP_DEBUG_DIRS="/nonexistent")
    r = run(["list", "-b", exe, "--functions", "path_*"], env=env)
    names = sorted({line.split()[1] for line in r.stdout.splitlines()
                    if len(line.split()) > 1})
    tap.ok(r.returncode == 0 and names == ["path_a", "path_b", "path_c"],
           "list --functions: the static functions of its debug file",
           r.stdout + r.stderr)
    t = Target([exe])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", "fn:mid=count()"],
               env=env)
    t.send("3 5 7")
    time.sleep(0.3)
    tr.finish()
    t.stop()
    a = agg_of(tr.final(), "fn:mid=count()")
    tap.eq(sum(r["total"] for r in a["rows"]) if a else None, 8,
           "fn:mid, a function only the debug file names: 8 calls")


with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    # -- stripped, nothing to name its static functions ------------------
    got, frames = fired(stripped(tmp, "stacks-bare"),
                        {"PROBETOP_DEBUG_DIRS": os.path.join(tmp, "none")})
    tap.ok(sum(got.values()) == 15 and not frames & {"path_a", "mid",
                                                     "leaf"} and
           any(f.startswith("stacks-bare+0x") for f in frames),
           "stripped, no debug file: 15 hits, static functions as "
           "stacks-bare+0x...", sorted(frames))
    starts = {"stacks-bare+0x%x" % function_offset(EXE, f): f
              for f in ("_start", "main", "run", "path_a", "path_b",
                        "path_c", "mid", "leaf")}
    tap.eq(sorted({f for f in frames if f.startswith("stacks-bare+")}),
           sorted(starts),
           "each unnamed frame is its function's start (by .eh_frame_hdr): "
           "one frame a function, as %s" % sorted(starts.values()))

    # -- by build ID under $PROBETOP_DEBUG_DIRS --------------------------
    exe = stripped(tmp, "stacks-bid")
    bid = build_id(exe)
    tap.ok(bid is not None and len(bid) > 2, "the fixture has a build ID",
           bid)
    ddir = os.path.join(tmp, "debug")
    os.makedirs(os.path.join(ddir, ".build-id", bid[:2]))
    sh("objcopy", "--only-keep-debug", EXE,
       os.path.join(ddir, ".build-id", bid[:2], bid[2:] + ".debug"))
    named("by build ID", exe,
          {"PROBETOP_DEBUG_DIRS": os.path.join(tmp, "none") + ":" + ddir})

    # -- by .gnu_debuglink, in .debug/ beside it -------------------------
    os.mkdir(os.path.join(tmp, ".debug"))
    exe = stripped(tmp, "stacks-dl",
                   os.path.join(tmp, ".debug", "stacks-dl.debug"))
    named("by .gnu_debuglink in .debug/", exe,
          {"PROBETOP_DEBUG_DIRS": os.path.join(tmp, "none")})
    functions_of_debug_file(exe)
    # the link's CRC-32 no longer matches: another build's file
    with open(os.path.join(tmp, ".debug", "stacks-dl.debug"), "ab") as f:
        f.write(b"\0")
    got, frames = fired(exe, {"PROBETOP_DEBUG_DIRS":
                              os.path.join(tmp, "none")})
    tap.ok(sum(got.values()) == 15 and "path_a" not in frames,
           "a debug file whose CRC-32 does not match is not used",
           sorted(frames))

    # -- MiniDebugInfo ---------------------------------------------------
    mini = os.path.join(tmp, "mini.debug")
    sh("objcopy", "--only-keep-debug", EXE, mini)
    sh("xz", "-k", mini)
    exe = os.path.join(tmp, "stacks-mini")
    sh("objcopy", "--strip-all", "--add-section",
       ".gnu_debugdata=" + mini + ".xz", EXE, exe)
    named("by MiniDebugInfo (.gnu_debugdata)", exe,
          {"PROBETOP_DEBUG_DIRS": os.path.join(tmp, "none")})

    # -- Debian's libc, by libc6-dbg's build ID --------------------------
    src = os.path.join(tmp, "qsorts.c")
    with open(src, "w") as f:
        f.write("#include <stdio.h>\n#include <stdlib.h>\n"
                "static int v[200000];\n"
                "static int cmp(const void *a, const void *b)\n"
                "{ return *(const int *)a - *(const int *)b; }\n"
                "int main(void) { printf(\"ready %d\\n\", 0); "
                "fflush(stdout); for (;;) { for (int i = 0; i < 200000; "
                "i++) v[i] = rand(); qsort(v, 200000, sizeof(int), cmp); "
                "} }\n")
    qs = os.path.join(tmp, "qsorts")
    sh("gcc", "-O2", "-o", qs, src)
    libc = "/lib/x86_64-linux-gnu/libc.so.6"
    lbid = build_id(libc)
    tap.ok(lbid and os.path.exists("/usr/lib/debug/.build-id/%s/%s.debug" %
                                   (lbid[:2], lbid[2:])),
           "libc6-dbg has libc's debug file by build ID (scripts/setup)",
           lbid)
    t = Target([qs])
    spec = "profile:99=count(ustack)"
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", spec])
    time.sleep(2)
    tr.finish()
    t.stop()
    a = agg_of(tr.final(), spec)
    leaves = {}
    for r in a["rows"] if a else []:
        leaves[r["key"][0][-1]] = leaves.get(r["key"][0][-1], 0) + \
            r["total"]
    tap.ok(any(k.startswith("msort_with_tmp") for k in leaves),
           "libc's internal msort_with_tmp, named by libc6-dbg's debug "
           "file", leaves)

tap.done()

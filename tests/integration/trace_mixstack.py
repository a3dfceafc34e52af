# SPDX-License-Identifier: MIT
"""mixstack keys (issue 34): the native stack with the Python frames in
place of CPython's eval frames, on every CPython 3.8 to 3.13 pyenv has
here and Debian's /usr/bin/python3.11 (no frame pointers: the unwind
tables walk it), by -p, at fn:libz.so.1:crc32, which zlib.crc32() (a C
extension's function, built into Debian's interpreter) calls once a call:

- outer() calls zlib.crc32() exactly N times: one stack counted exactly
  N (Debian's stripped python3.11: stacks that differ only in frames
  unnamed, "python3.11+0x...", their sum N), in which outer's Python frame comes after the interpreter's native
  root (Py_BytesMain) and <module>, before zlib's native frames, crc32
  last, every frame after outer native; no _PyEval_EvalFrameDefault left,
  no "[python: ...]" note (every eval frame paired);
- first() and second() call it 200 and 500 times: two rows, exact;
- nested() -> middle() (an inline Python call in 3.11+) -> sorted(key=
  keyf) -> keyf() calls it once per item: nested and middle before
  sorted's native frames, keyf after them (a C call back into Python is
  another eval call: 3.11's is_entry, 3.12's shim frames), exact;
- deep() -> rec() 40 deep, then zlib.crc32(): 43 Python frames, of which
  the kernel keeps 32: the innermost 32 rec frames, "[python: cut]"
  before them, no eval frame left, exact;
- a command probetop starts (CPython 3.12 and Debian's 3.11) that calls
  it 1,000 times from once() and exits before its stacks are named:
  exact, every stack merged (its names taken at first sight);
- --folded on CPython 3.12: the same stacks as folded lines, exact.

Usage: trace_mixstack.py"""

import os
import re
import tempfile
import time

from tap import Tap, Target, Trace, agg_of, need_root

tap = Tap()
need_root(tap)

WORKLOAD = """\
import sys, zlib
def outer(n):
    for i in range(n):
        zlib.crc32(b"outer")
def first(n):
    for i in range(n):
        zlib.crc32(b"first")
def second(n):
    for i in range(n):
        zlib.crc32(b"second")
def keyf(x):
    zlib.crc32(b"key")
    return -x
def middle(n):
    return sorted(range(n), key=keyf)
def nested(n):
    middle(n)
def rec(d):
    if d:
        return rec(d - 1)
    zlib.crc32(b"rec")
def deep(n):
    for i in range(n):
        rec(40)
def run(cmd, n):
    if cmd == "outer":
        outer(n)
    elif cmd == "first":
        first(n)
    elif cmd == "second":
        second(n)
    elif cmd == "nested":
        nested(n)
    elif cmd == "deep":
        deep(n)
print("ready", flush=True)
for line in sys.stdin:
    cmd, n = line.split()
    run(cmd, int(n))
    print("done", flush=True)
"""
LINE = {name: i + 1 for i, l in enumerate(WORKLOAD.splitlines())
        for name in re.findall(r"^def (\w+)\(", l)}
MIX = "fn:libz.so.1:crc32=count(mixstack)"
RUNS = (("outer", 300), ("first", 200), ("second", 500), ("nested", 150),
        ("deep", 50))


def pythons():
    """(label, path) of every CPython to try: pyenv's 3.8..3.13 and
    Debian's 3.11."""
    out = []
    root = "/root/.pyenv/versions"
    for v in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        m = re.match(r"3\.(\d+)\.\d+$", v)
        if m and 8 <= int(m.group(1)) <= 13:
            out.append((v, os.path.join(root, v, "bin",
                                        "python3." + m.group(1))))
    out.append(("debian 3.11", "/usr/bin/python3.11"))
    return out


def py(func):
    """A Python frame as mixstack names it."""
    return "%s (work.py:%d)" % (func, LINE[func])


def is_py(frame):
    """Whether a frame is a Python one: "function (file:line)"."""
    return re.search(r" \([^()]*\)$", frame) is not None


def trace(py_exe, script, folded=False):
    """Run every workload of RUNS under a trace of MIX, once before it
    (3.11+ specialize a call after a few runs: a call site then calls
    C by another native path, which would be another stack): the
    trace."""
    t = Target([py_exe, script])
    for cmd, n in RUNS:
        t.send("%s %d" % (cmd, n))
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", MIX] +
               (["--folded"] if folded else []), json_out=not folded)
    for cmd, n in RUNS:
        t.send("%s %d" % (cmd, n))
    time.sleep(0.3)
    tr.finish()
    t.stop()
    return tr


def by_leaf(stacks):
    """{the innermost Python frame: [stack, ...]} of {stack: count}, and
    {that frame: the stacks' count}."""
    out, counts = {}, {}
    for st, n in stacks.items():
        pys = [f for f in st if is_py(f)]
        leaf = pys[-1] if pys else None
        out.setdefault(leaf, []).append(st)
        counts[leaf] = counts.get(leaf, 0) + n
    return out, counts


def one_path(label, leaf, sts):
    """sts, the stacks of one Python function, are one call path: one
    stack, or (a stripped interpreter, whose unnamed frames are named by
    address: "python3.11+0x..."; Debian's list_sort calls the key
    function from four places) stacks that differ in unnamed frames
    only."""
    unnamed = re.compile(r"^[^ ;]+\+0x[0-9a-f]+$")
    same = len({tuple("?" if unnamed.match(f) else f for f in st)
                for st in sts}) == 1 and \
        len({len(st) for st in sts}) == 1
    tap.ok(len(sts) == 1 or (label.startswith("debian") and same),
           "%s: %s: one call path (%d stacks%s)" %
           (label, leaf, len(sts), ", unnamed frames apart" if
            len(sts) > 1 else ""), "\n".join(";".join(s) for s in sts))


def check_stack(label, st, pyframes, between=()):
    """st (frames, root first) holds pyframes in that order after
    Py_BytesMain and <module>, native frames only after the last, crc32
    last; between: pairs of Python frames with a native frame between
    them."""
    if not tap.ok(isinstance(st, tuple) and all(f in st for f in pyframes)
                  and "Py_BytesMain" in st and py("run") in st,
                  "%s: %s: the stack has %s" % (label, pyframes[-1],
                                               ", ".join(pyframes)), st):
        return
    at = [st.index(f) for f in ["Py_BytesMain", py("run")] + pyframes]
    tap.ok(at == sorted(at) and st.index(py("run")) > 0 and
           st[-1] == "crc32" and
           not any(is_py(f) for f in st[at[-1] + 1:]) and
           len(st) - at[-1] >= 3,
           "%s: %s: root first: Py_BytesMain, <module>, run, %s, then "
           "native frames only (zlib's C, crc32 last)" %
           (label, pyframes[-1], ", ".join(pyframes)), ";".join(st))
    for a, b in between:
        mid = st[st.index(a) + 1:st.index(b)]
        tap.ok(mid and not any(is_py(f) for f in mid),
               "%s: native frames (sorted's) between %s and %s" %
               (label, a, b), ";".join(st))
    tap.ok(not any(f.startswith("_PyEval_EvalFrameDefault") or
                   f.startswith("[python:") for f in st),
           "%s: %s: every eval frame replaced by its Python frames, no "
           "note" % (label, pyframes[-1]), ";".join(st))


def check(label, py_exe, script):
    tr = trace(py_exe, script)
    a = agg_of(tr.final(), MIX) if tr.final() else None
    if not tap.ok(a is not None, "%s: the mixstack spec ran" % label,
                  tr.stderr):
        return
    stacks = {}
    for r in a["rows"]:
        st = tuple(r["key"][0])
        stacks[st] = stacks.get(st, 0) + r["total"]
    leaf, got = by_leaf(stacks)
    tap.eq(got, {py("outer"): 300, py("first"): 200, py("second"): 500,
                 py("keyf"): 150, py("rec"): 50},
           "%s: crc32 counted exactly by the Python function that called "
           "it (two functions, two rows)" % label,
           "\n".join("%s %d" % (";".join(s), n) for s, n in stacks.items()))
    for f, want, between in (
            ("outer", ["outer"], []), ("first", ["first"], []),
            ("second", ["second"], []),
            ("keyf", ["nested", "middle", "keyf"], [("middle", "keyf")])):
        sts = leaf.get(py(f), [None])
        one_path(label, py(f), sts)
        for st in sts:
            check_stack(label, st, [py(x) for x in want],
                        between=[(py(a), py(b)) for a, b in between])
    for st in leaf.get(py("rec"), [()]):
        tap.ok(st.count(py("rec")) == 32 and "[python: cut]" in st and
               st.index("[python: cut]") < st.index(py("rec")) and
               st[-1] == "crc32" and
               not any(f.startswith("_PyEval_EvalFrameDefault")
                       for f in st),
               "%s: rec() 40 deep: its innermost 32 frames (what the "
               "kernel keeps), '[python: cut]' before them, no eval frame "
               "left" % label, ";".join(st))
    tap.eq(a["drops"], 0, "%s: nothing dropped" % label)


with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "work.py")
    with open(script, "w") as f:
        f.write(WORKLOAD)
    found = pythons()
    tap.ok(len(found) >= 7, "every CPython 3.8 to 3.13 found, and "
           "Debian's 3.11", found)
    for label, exe in found:
        check(label, exe, script)

    # a command probetop starts, gone before its stacks are named: the
    # native frames named from the mappings the kernel sent, the Python
    # ones from the names it took at first sight
    short = os.path.join(tmp, "short.py")
    with open(short, "w") as f:
        f.write("import zlib\n"
                "def once(n):\n"
                "    for i in range(n):\n"
                "        zlib.crc32(b'x')\n"
                "once(1000)\n")
    for label, exe in found:
        if not (label.startswith("3.12.") or label.startswith("debian")):
            continue
        tr = Trace(["--budget", "off", "-i", "60", "-e", MIX, "--", exe,
                    short])
        tr.finish(sig=None, timeout=60)
        a = agg_of(tr.final(), MIX) if tr.final() else None
        sts = {tuple(r["key"][0]): r["total"] for r in a["rows"]} \
            if a else {}
        good = [st for st in sts if "Py_BytesMain" in st and
                "once (short.py:2)" in st and
                st.index("Py_BytesMain") < st.index("<module> (short.py:1)")
                < st.index("once (short.py:2)") < len(st) - 2 and
                st[-1] == "crc32" and
                not any(is_py(f) for f in st[st.index("once (short.py:2)")
                                             + 1:]) and
                not any(f.startswith("_PyEval_EvalFrameDefault") or
                        f.startswith("[python:") for f in st)]
        tap.ok(len(good) == len(sts) and sum(sts.values()) == 1000,
               "%s, launched and gone: 1,000 calls from once() exactly, "
               "every stack named and merged" % label,
               "\n".join("%s %d" % (";".join(st), n)
                         for st, n in sts.items()))

    # --folded: the same stacks, one line each, exact
    p312 = [exe for label, exe in found if label.startswith("3.12.")]
    if p312:
        tr = trace(p312[0], script, folded=True)
        final = tr.stdout.split("# final")[-1].splitlines()[2:]
        counts = {}
        for line in final:
            frames, n = line.rsplit(" ", 1)
            pys = [f for f in frames.split(";") if is_py(f)]
            counts[pys[-1] if pys else None] = \
                counts.get(pys[-1] if pys else None, 0) + int(n)
        tap.eq(counts, {py("outer"): 300, py("first"): 200,
                        py("second"): 500, py("keyf"): 150, py("rec"): 50},
               "--folded, 3.12: each stack's folded line, exact",
               tr.stdout)
        tap.ok(all(l.split(";")[0] != "" and
                   "_PyEval_EvalFrameDefault" not in l for l in final),
               "--folded, 3.12: no eval frame left", tr.stdout)
    else:
        tap.skip("--folded on 3.12", "no pyenv CPython 3.12")

tap.done()

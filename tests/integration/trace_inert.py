# SPDX-License-Identifier: MIT
"""A traced program cannot write to the user's terminal: a Python
function in a file whose name holds ESC ] 0 ; x BEL (retitle), ESC [ 2 J
(clear) and a newline (a forged line), counted by file name, comes out
inert (engine/name/inert.h) in trace's text and JSON, by -p and by --, with
its exact count; and an error message that quotes such a name too."""

import json
import os
import signal
import subprocess
import tempfile

from tap import PROBETOP, Tap, Target, Trace, agg_of, need_root, run

tap = Tap()
need_root(tap)
PY = "/usr/bin/python3.11"
SPEC = "python:function__return=count(str(arg0))"
EVIL = "e\x1b]0;x\x07\x1b[2J\nv.py"
SHOWN = "e\\x1b]0;x\\x07\\x1b[2J\\nv.py"
CALLS = 7

WAITING = """\
import sys
def f(): return 1
print("ready", flush=True)
sys.stdin.readline()
for _ in range(%d):
    f()
print("done", flush=True)
sys.stdin.readline()
""" % CALLS
# launched: f's returns and the module's own
ONCE = "def f(): return 1\nfor _ in range(%d):\n    f()\n" % CALLS


def key_line(text, key):
    """The fields of the final summary's row whose key is key, or None."""
    for line in text.split("=== final")[-1].splitlines():
        fields = line.split()
        if fields and fields[0] == key:
            return fields
    return None


def no_raw(data):
    return b"\x1b" not in data and b"\x07" not in data


with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, EVIL)
    shown = os.path.join(tmp, SHOWN)
    with open(script, "w") as f:
        f.write(WAITING)

    # -- -p, text: escaped, no raw control, one line, exact ------------
    t = Target([PY, script])
    p = subprocess.Popen([PROBETOP, "trace", "-p", str(t.pid), "-i", "30",
                          "-e", SPEC], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    line = p.stderr.readline()
    tap.ok(b"probetop: attached" in line, "text: attached", line)
    tap.eq(t.send("go").strip(), "done", "workload ran")
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    t.stop()
    tap.ok(no_raw(out) and no_raw(err),
           "text: no raw ESC or BEL on stdout or stderr", repr(out))
    text = out.decode("utf-8")
    tap.ok(shown in text, "text: the file name shown escaped", text)
    tap.eq(key_line(text, shown), [shown, str(CALLS)],
           "text: the row is one line, exact count", text)
    tap.ok("\nv.py" not in text, "text: no line forged by the name", text)

    # -- -p, JSON: valid, the key decodes to the escaped text ----------
    t = Target([PY, script])
    tr = Trace(["-p", str(t.pid), "-i", "30", "-e", SPEC])
    tap.eq(t.send("go").strip(), "done", "workload ran (JSON)")
    tr.finish()
    t.stop()
    tap.ok(all(json.loads(l) for l in tr.stdout.splitlines()),
           "JSON: every line parses")
    rows = {tuple(r["key"]): r["count"]
            for r in agg_of(tr.final(), SPEC)["rows"]}
    tap.eq(rows.get((shown,)), CALLS, "JSON: escaped key, exact count",
           rows)
    tap.ok("\x1b" not in tr.stdout, "JSON: no raw ESC in the text",
           tr.stdout)

    # -- launched with --: the same, counted from the first instruction
    once = os.path.join(tmp, "o" + EVIL)
    with open(once, "w") as f:
        f.write(ONCE)
    r = subprocess.run([PROBETOP, "trace", "-e", SPEC, "--", PY, once],
                       capture_output=True, timeout=60)
    tap.eq(r.returncode, 0, "--: exit status", r.stderr)
    tap.ok(no_raw(r.stdout) and no_raw(r.stderr),
           "--, text: no raw ESC or BEL", repr(r.stdout))
    tap.eq(key_line(r.stdout.decode("utf-8"), os.path.join(tmp, "o" + SHOWN)),
           [os.path.join(tmp, "o" + SHOWN), str(CALLS + 1)],
           "--, text: escaped key, exact count (f's returns and the "
           "module's)", r.stdout.decode("utf-8", "replace"))
    r = subprocess.run([PROBETOP, "trace", "--json", "-e", SPEC, "--", PY,
                        once], capture_output=True, timeout=60)
    objs = [json.loads(l) for l in r.stdout.decode("utf-8").splitlines()
            if l.startswith("{")]
    final = [o for o in objs if o.get("final")]
    rows = {tuple(x["key"]): x["count"]
            for x in agg_of(final[-1], SPEC)["rows"]} if final else {}
    tap.eq(rows.get((os.path.join(tmp, "o" + SHOWN),)), CALLS + 1,
           "--, JSON: escaped key, exact count", rows)

    # -- a message that quotes a name: escaped, one line ---------------
    r = run(["trace", "-b", script + ".missing", "-e", SPEC])
    tap.ok("\x1b" not in r.stderr and shown + ".missing" in r.stderr and
           len(r.stderr.splitlines()) == 1,
           "an error quoting the name: escaped, one line", r.stderr)

tap.done()

# SPDX-License-Identifier: MIT
"""Variables and functions in specs: `SYMBOL reads a variable of the
probe's own object where the probe fires (ip-relative: the object may be
loaded anywhere), as a number of its own size and sign or as a string;
PROBE@FUNCTION keeps a USDT probe's locations in that function alone.

- strkeys sets its variables strk_mode (an int) and strk_label (a char
  *), then fires strk:key: `strk:key=count(`strk_mode, str(`strk_label))`
  counts each firing under the values of the moment, exactly, -2 read as
  -2 (four bytes, signed); str(`strk_buf) of its char[48] is its text
  (an array is its address);
- in a shared library, at a function's entry: glibc's
  program_invocation_short_name and __libc_single_threaded (one byte) at
  each getppid() call;
- strk:key@fire (the function the probe is in) counts every firing,
  strk:key@main none: an error that says so;
- a variable the object lacks, a function named as a variable, and one
  read at a %return probe: one-line errors, exit status 1 or 2."""

import os

from tap import FIXTURE_DIR, Tap, Target, Trace, agg_of, need_root, run

tap = Tap()
need_root(tap)
EXE = os.path.join(FIXTURE_DIR, "strkeys")
MODE = "strk:key=count(`strk_mode, str(`strk_label))"
LIBC = ("fn:libc.so.6:getppid=count(str(`program_invocation_short_name), "
        "`__libc_single_threaded)")
IN_FIRE = "strk:key@fire=count()"
BUF = "strk:key=count(str(`strk_buf))"  # a char[48]: its address


def keyed(final, spec):
    """{key as a tuple: total} of spec's rows."""
    a = agg_of(final, spec)
    return {tuple(r["key"]): r["total"] for r in a["rows"]} if a else None


t = Target([EXE])
tr = Trace(["-p", str(t.pid), "--budget", "off", "-i", "60", "-e", MODE,
            "-e", LIBC, "-e", IN_FIRE, "-e", BUF])
try:
    tap.eq(t.send("mode 3 three").strip(), "mode 3", "strk_mode set to 3")
    t.send("lit 5 2")
    t.send("mode -2 minus")
    t.send("heap 4 1")
    t.send("lit 1 1")
    t.send("ppid 6")
finally:
    tr.finish()
    t.stop()
final = tr.final()
tap.eq(keyed(final, MODE), {(3, "three"): 5, (-2, "minus"): 5},
       "`strk_mode, str(`strk_label): each firing under the variables' "
       "values then, -2 as -2", tr.stderr[-2000:])
tap.eq(keyed(final, BUF), {("buf-three",): 5, ("buf-minus",): 5},
       "str(`strk_buf) of an array (char[48]): its text, as C's arrays "
       "decay to their address")
tap.eq(keyed(final, LIBC), {("strkeys", 1): 6},
       "a shared library's variables at a function's entry: glibc's "
       "program_invocation_short_name and __libc_single_threaded (one "
       "byte), at each of 6 getppid() calls")
tap.eq(keyed(final, IN_FIRE), {(): 10},
       "strk:key@fire: the probe's locations in fire(), every firing")
a = agg_of(final, IN_FIRE)
tap.eq(a and a["locations"], 1, "one location, fire()'s")

ERRORS = [
    ("strk:key@main=count()", 2,
     "probetop: -e 'strk:key@main=count()': no probe of %s matches (or "
     "none of its locations is in a function main)" % EXE),
    ("strk:key=count(`no_such_var)", 1,
     "probetop: -e 'strk:key=count(`no_such_var)': no location of its "
     "probes can serve it (see above)"),
    ("strk:key=count(`main)", 1,
     "probetop: -e 'strk:key=count(`main)': no location of its probes "
     "can serve it (see above)"),
]
for spec, rc, said in ERRORS:
    r = run(["trace", "-b", EXE, "-e", spec, "-d", "1"])
    tap.eq((r.returncode, r.stderr.strip().splitlines()[-1:]), (rc, [said]),
           "%s: a one-line error, exit status %d" % (spec, rc), r.stderr)
r = run(["trace", "-b", EXE, "-e", "strk:key=count(`no_such_var)", "-d",
         "1"])
tap.ok("no variable `no_such_var in its symbols" in r.stderr,
       "... which says the variable is not in the object's symbols",
       r.stderr)
r = run(["trace", "-b", EXE, "-e", "strk:key=count(`main)", "-d", "1"])
tap.ok("`main is not a variable" in r.stderr,
       "... and that a function is not a variable", r.stderr)
r = run(["trace", "-b", EXE, "-e", "fn:fire%return=count(`strk_mode)",
         "-d", "1"])
tap.eq((r.returncode, r.stderr.strip()),
       (2, "probetop: -e 'fn:fire%return=count(`strk_mode)': `strk_mode: a "
           "variable is read at a USDT probe or a function's entry, not at "
           "a %return probe at column 16"),
       "a variable at a %return probe: refused where the spec is parsed")
tap.done()

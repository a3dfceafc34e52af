# SPDX-License-Identifier: MIT
"""The phpline key (the innermost PHP code frame and the line it is on)
on Debian's PHP 8.2 (/usr/bin/php8.2, started plainly), by -p and on a
command probetop launches:

- fn:libc.so.6:write=count(phpline): fwrite() to /dev/null (a C function
  of PHP's, one write(2) a call) N times from one line of two(), 2N + 1
  times from another line of it, 7 times from a method's line, 5 times
  from eval'd code (each eval compiled anew; its fwrite() on the third
  line of the code), once from each of 20 closures freed one after
  another (closure i's fwrite() on line i + 1 of its eval'd code), and
  echo's write of the "done" line in the file's top level: every row
  exactly the function, file and line of the call, and no other row;
- profile:99=count(phpline) on a loop whose two lines spend 3/4 and 1/4
  of the time (each line a loop of md5() calls, 300 and 100 a turn): the
  heavier line at 75% +- 7 points of the samples, all but a few of them
  in split() on one of the two lines;
- a php command that exits at once: its lines named all the same (the
  kernel sends a function's names at first sight), exactly."""

import os
import tempfile

from tap import Tap, Target, Trace, agg_of, need_root

tap = Tap()
need_root(tap)

PHP = "/usr/bin/php8.2"
WORKLOAD = """\
<?php
$null = fopen("/dev/null", "w");
function two($f, $n)
{
    for ($i = 0; $i < $n; $i++)
        fwrite($f, "a"); // A
    for ($i = 0; $i < 2 * $n + 1; $i++) fwrite($f, "b"); // B
}
class W
{
    static function one($f, $n)
    {
        for ($i = 0; $i < $n; $i++) {
            fwrite($f, "c"); // C
        }
    }
}
function evals($f, $n)
{
    for ($i = 0; $i < $n; $i++)
        eval("\\n\\nfwrite(\\$f, 'e');"); // E
}
function reuse($f, $n)
{
    for ($i = 0; $i < $n; $i++) {
        $g = eval(str_repeat("\\n", $i) . "return function (\\$h) { fwrite(\\$h, 'r'); };"); // R
        $g($f);
        unset($g);
    }
}
function split($t)
{
    $end = microtime(true) + $t;
    while (microtime(true) < $end) {
        for ($i = 0; $i < 300; $i++) $h = md5("x$i"); // HEAVY
        for ($i = 0; $i < 100; $i++) $h = md5("y$i"); // LIGHT
    }
}
echo "ready\\n";
while (($line = fgets(STDIN)) !== false) {
    [$cmd, $n] = explode(" ", trim($line));
    if ($cmd == "write") {
        two($null, $n);
        W::one($null, 7);
        evals($null, 5);
        reuse($null, 20);
    } elseif ($cmd == "split")
        split($n);
    echo "done\\n"; // DONE
}
"""
LINE = {m: next(i + 1 for i, l in enumerate(WORKLOAD.splitlines())
                if l.endswith("// " + m))
        for m in ("A", "B", "C", "E", "R", "HEAVY", "LIGHT", "DONE")}
WRITE = "fn:libc.so.6:write=count(phpline)"
SAMPLE = "profile:99=count(phpline)"
N, CLOSURES = 1000, 20


def rows(obj, spec):
    """{(function, file, line): total} of spec's rows; a key that two rows
    show is ("twice", key)."""
    out = {}
    for r in agg_of(obj, spec)["rows"] if agg_of(obj, spec) else []:
        k = tuple(r["key"])
        out[("twice", k) if k in out else k] = r["total"]
    return out


def cut(path):
    """path as a key shows it: its end, behind "...", past 63 bytes."""
    return path if len(path) <= 63 else "..." + path[-60:]


def check_pid(script):
    t = Target([PHP, "-n", script])
    # --budget off: the counts are checked exactly; the libc function
    # probed begins with an instruction the kernel single-steps, dear
    # on some machines (14 us a hit), which a default budget samples
    tr = Trace(["-p", str(t.pid), "-i", "60", "--budget", "off",
                "-e", WRITE, "-e", SAMPLE])
    tap.eq(t.send("write %d" % N).strip(), "done", "write ran")
    tap.eq(t.send("split 4").strip(), "done", "split ran")
    tr.finish()
    t.stop()
    fin = tr.final()
    w, s = rows(fin, WRITE), rows(fin, SAMPLE)
    ev = cut("%s(%d) : eval()'d code" % (script, LINE["E"]))
    rv = cut("%s(%d) : eval()'d code" % (script, LINE["R"]))
    want = {("two", script, LINE["A"]): N,
            ("two", script, LINE["B"]): 2 * N + 1,
            ("W::one", script, LINE["C"]): 7,
            ("{eval}", ev, 3): 5,
            ("{main}", script, LINE["DONE"]): 2}
    want.update({("{closure}", rv, i + 1): 1 for i in range(CLOSURES)})
    tap.eq(w, want, "every write(2) counted exactly by the function, file "
           "and line of its fwrite() (a method, eval'd code, %d closures "
           "at one address after another, echo at the top level), and "
           "no other row" % CLOSURES, w)
    tap.eq(agg_of(fin, WRITE)["drops"], 0, "no write dropped")
    heavy = s.get(("split", script, LINE["HEAVY"]), 0)
    light = s.get(("split", script, LINE["LIGHT"]), 0)
    tap.ok(light and 0.68 <= heavy / (heavy + light) <= 0.82 and
           # the rest (the loop's own lines, the caller's) a few %:
           # 12 of 407 on a machine where a trap is dear
           sum(s.values()) - heavy - light <= max(10, 0.05 * sum(s.values()))
           and heavy + light > 150,
           "profile:99: the two lines sampled 3:1, 75%% +- 7 points for "
           "the heavier, the rest at most 5%% (%d:%d of %d)"
           % (heavy, light, sum(s.values())), s)


SHORT = """\
<?php
function w($f, $n)
{
    for ($i = 0; $i < $n; $i++)
        fwrite($f, "x");
    fwrite($f, "yy");
}
$f = fopen("/dev/null", "w");
w($f, 50);
fwrite($f, "z");
"""


def check_launched(tmp):
    """A command probetop launches, which ends at once: its lines named
    all the same, exactly."""
    short = os.path.join(tmp, "short.php")
    with open(short, "w") as f:
        f.write(SHORT)
    tr = Trace(["-i", "60", "--budget", "off",
                "-e", WRITE, "--", PHP, "-n", short])
    tr.finish(sig=None)
    got = rows(tr.final(), WRITE)
    tap.eq(got, {("w", short, 5): 50, ("w", short, 6): 1,
                 ("{main}", short, 10): 1},
           "a launched php that exits at once: its lines named, exactly",
           (got, tr.stderr))


if not os.path.exists(PHP):
    tap.skip_all(PHP + " not installed (php8.2-cli, scripts/setup)")
with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "work.php")
    with open(script, "w") as f:
        f.write(WORKLOAD)
    check_pid(script)
    check_launched(tmp)
tap.done()

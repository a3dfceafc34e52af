# SPDX-License-Identifier: MIT
"""phpframe and phpstack keys, and profile:HZ, on Debian's PHP 8.2
(/usr/bin/php8.2: stripped, non-ZTS, started plainly, without
USE_ZEND_DTRACE), by -p:

- fn:libc.so.6:getpid=count(phpframe) and =count(phpstack): getmypid()
  (a C function of PHP's, which calls libc's getpid() once) called
  exactly N times from caller() and M times from the method K::m: each
  counted exactly by the PHP function that called it (name, file, first
  line; the C function's frame is not a PHP function's) and by stack,
  root first ({main};run;caller;getmypid: the C function last);
- 30 closures, each from its own eval() with its body on another line,
  called (closure i calls getmypid() i + 1 times) and freed one after
  another, so that a closure's function (a copy in the closure object)
  takes the address of the one before: each row named as its own
  ({closure}, the eval'd code, its first line), its calls exact;
- getmypid() in eval'd code, 7 evals (each compiled anew, a function of
  its own): one row {eval}, named by the file and line of the eval;
  every row of the exact specs one of those, no name on two rows;
- profile:99=count(phpframe) on a loop that spends 3/4 of its time in
  heavy() and 1/4 in light(), under one spin(): every sample in spin,
  99 a second of the CPU time the process had (within 35%: the machine
  may be shared); =count(phpstack): the two paths 3:1 (heavy() at 75%
  +- 7 points, over 4 s);
- a command probetop launches, which exits at once: named all the same
  (the kernel takes names at first sight), exactly; the getpid() PHP
  makes before any PHP code runs dropped as without a PHP frame;
- -P phpsample (the probeset picked for a PHP started plainly): Top's
  frames and Stacks' stacks as CPU samples, in spin; its GC pane from a
  function probe on the cycle collector: gc_collect_cycles() called 20
  times timed 20 times, and what it freed summed, as gc_status() says;
- a PHP whose build ID names a version without a table (a copy of
  php8.2 with its "API20220829,NTS" changed to 8.4's module API) gets one
  line naming it, and a spec without PHP keys still counts exactly."""

import os
import shutil
import tempfile
import time

from tap import Tap, Target, Trace, agg_of, need_root

tap = Tap()
need_root(tap)

PHP = "/usr/bin/php8.2"
WORKLOAD = """\
<?php
function caller($n)
{
    for ($i = 0; $i < $n; $i++)
        getmypid();
}
class K
{
    function m($n)
    {
        for ($i = 0; $i < $n; $i++)
            getmypid();
    }
}
function spin($t)
{
    $end = microtime(true) + $t;
    while (microtime(true) < $end) {
    }
}
function heavy() { spin(0.03); }
function light() { spin(0.01); }
function reuse($n)
{
    for ($i = 0; $i < $n; $i++) {
        $f = eval(str_repeat("\\n", $i) . "return function () { for (\\$k = 0; \\$k < $i + 1; \\$k++) getmypid(); };");
        $f();
        unset($f);
    }
}
function evals($n)
{
    for ($i = 0; $i < $n; $i++)
        eval("getmypid();");
}
function cycles($n)
{
    for ($i = 0; $i < $n; $i++) {
        for ($j = 0; $j <= $i; $j++) {
            $o = new stdClass();
            $o->self = $o;
            unset($o);
        }
        gc_collect_cycles();
    }
    $s = gc_status();
    return $s["runs"] . " " . $s["collected"];
}
function run($cmd, $n)
{
    if ($cmd == "calls")
        caller($n);
    elseif ($cmd == "method")
        (new K())->m($n);
    elseif ($cmd == "reuse")
        reuse($n);
    elseif ($cmd == "evals")
        evals($n);
    elseif ($cmd == "gc")
        return cycles($n);
    elseif ($cmd == "spin") {
        $end = microtime(true) + $n;
        while (microtime(true) < $end) {
            heavy();
            light();
        }
    }
}
echo "ready\\n";
while (($line = fgets(STDIN)) !== false) {
    [$cmd, $n] = explode(" ", trim($line));
    echo (run($cmd, (int)$n) ?? "done") . "\\n";
}
"""
LINES = WORKLOAD.splitlines()
LINE = {w: next(i + 1 for i, l in enumerate(LINES) if l.startswith(w))
        for w in ("function caller", "    function m", "function spin",
                  "        $f = eval", "        eval(")}
FRAME = "fn:libc.so.6:getpid=count(phpframe)"
STACK = "fn:libc.so.6:getpid=count(phpstack)"
PFRAME = "profile:99=count(phpframe)"
PSTACK = "profile:99=count(phpstack)"
N, M, REUSE, EVALS, GC_ROUNDS = 1234, 56, 30, 7, 20


def rows(obj, spec):
    """{key: total} of spec's rows, a stack as its folded text; a key
    that two rows show is ("twice", key)."""
    out = {}
    for r in agg_of(obj, spec)["rows"] if agg_of(obj, spec) else []:
        k = tuple(";".join(k) if isinstance(k, list) else k
                  for k in r["key"])
        out[("twice", k) if k in out else k] = r["total"]
    return out


def cpu_s(pid):
    """The CPU time pid's thread has had, in seconds (schedstat: in ns,
    not in ticks)."""
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0]) / 1e9


def cut(path):
    """path as a key shows it: its end, behind "...", past 63 bytes."""
    return path if len(path) <= 63 else "..." + path[-60:]


def check_exact(script):
    t = Target([PHP, "-n", script])
    # --budget off: the counts are checked exactly; the libc function
    # probed begins with an instruction the kernel single-steps, dear
    # on some machines (14 us a hit), which a default budget samples
    tr = Trace(["-p", str(t.pid), "-i", "60", "--budget", "off",
                "-e", FRAME, "-e", STACK,
                "-e", PFRAME, "-e", PSTACK])
    for cmd, n in (("calls", N), ("method", M), ("reuse", REUSE),
                   ("evals", EVALS)):
        tap.eq(t.send("%s %d" % (cmd, n)).strip(), "done", "%s ran" % cmd)
    was = cpu_s(t.pid)
    tap.eq(t.send("spin 4").strip(), "done", "spin ran")
    spent = cpu_s(t.pid) - was
    time.sleep(0.3)
    tr.finish()
    t.stop()
    fin = tr.final()
    f, s = rows(fin, FRAME), rows(fin, STACK)
    short = cut(script)
    tap.eq(({k: v for k, v in f.items() if k[0] in ("caller", "K::m")},
            {k: v for k, v in s.items() if ";caller;" in k[0] or
             ";K::m;" in k[0]}),
           ({("caller", short, LINE["function caller"]): N,
             ("K::m", short, LINE["    function m"]): M},
            {("{main};run;caller;getmypid",): N,
             ("{main};run;K::m;getmypid",): M}),
           "getmypid() counted exactly by the PHP function that called it "
           "(name, file, first line), a method as K::m, and by stack, "
           "root first, the C function last", (f, s))
    ev = cut("%s(%d) : eval()'d code" % (script, LINE["        $f = eval"]))
    tap.eq(({k: v for k, v in f.items() if k[0] == "{closure}"},
            {k: v for k, v in s.items() if "{closure}" in k[0]}),
           ({("{closure}", ev, i + 1): i + 1 for i in range(REUSE)},
            {("{main};run;reuse;{closure};getmypid",):
             REUSE * (REUSE + 1) // 2}),
           "%d closures called and freed one after another (their "
           "functions' addresses taken again): each named as itself, its "
           "calls exact" % REUSE, f)
    ev = cut("%s(%d) : eval()'d code" % (script, LINE["        eval("]))
    tap.eq(({k: v for k, v in f.items() if k[0] == "{eval}"},
            {k: v for k, v in s.items() if "{eval}" in k[0]}),
           ({("{eval}", ev, 1): EVALS},
            {("{main};run;evals;{eval};getmypid",): EVALS}),
           "getmypid() in eval'd code (%d evals, each compiled anew): one "
           "row {eval}, the file and line of the eval, exactly" % EVALS,
           (f, s))
    tap.eq(len(f) + len(s), 2 + REUSE + 1 + 2 + 1 + 1,
           "every row of the exact specs is one of those, once", (f, s))
    pf, ps = rows(fin, PFRAME), rows(fin, PSTACK)
    spin = pf.get(("spin", short, LINE["function spin"]), 0)
    tap.ok(spent > 0.4 and 0.65 <= spin / (99 * spent) <= 1.35 and
           sum(pf.values()) - spin <= 10,
           "profile:99: 99 samples a CPU second (%.2f s: %d), in spin"
           % (spent, spin), pf)
    hv = sum(v for k, v in ps.items()
             if k[0].startswith("{main};run;heavy;spin"))
    lt = sum(v for k, v in ps.items()
             if k[0].startswith("{main};run;light;spin"))
    tap.ok(lt and 0.68 <= hv / (hv + lt) <= 0.82,
           "the two paths sampled 3:1: 75%% +- 7 points for heavy() "
           "(%d:%d)" % (hv, lt), ps)
    drops = agg_of(fin, FRAME)["drops"] + agg_of(fin, STACK)["drops"]
    tap.eq(drops, 0, "nothing dropped by the exact specs")


def check_probeset(script):
    t = Target([PHP, "-n", script])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-P", "phpsample"])
    was = cpu_s(t.pid)
    tap.eq(t.send("spin 2").strip(), "done", "phpsample: spin ran")
    spent = cpu_s(t.pid) - was
    time.sleep(0.2)
    tr.finish()
    t.stop()
    fin = tr.final()
    pf, ps = rows(fin, PFRAME), rows(fin, PSTACK)
    spin = pf.get(("spin", cut(script), LINE["function spin"]), 0)
    tap.ok(spent > 0.2 and 0.65 <= spin / (99 * spent) <= 1.35 and
           sum(pf.values()) - spin <= 5,
           "-P phpsample: Top's frames sampled, in spin (%.2f s: %d)"
           % (spent, spin), (pf, tr.stderr))
    # the script's own loop reads its next command between runs: a
    # sample there ({main};fgets, 1 in 204 in CI42) is true, and as rare
    under = [v for k, v in ps.items() if k[0].startswith("{main};run")]
    spun = sum(v for k, v in ps.items()
               if k[0].startswith("{main};run;") and ";spin" in k[0])
    tap.ok(all(k[0].startswith("{main}") for k in ps) and
           sum(ps.values()) - sum(under) <= 5 and spun >= sum(under) - 5,
           "-P phpsample: Stacks' PHP stacks sampled, all but a few under "
           "run and in spin, the others in the script's own loop", ps)


GC_PAUSE = "fn:zend_gc_collect_cycles=latency()"
GC_FREED = "fn:zend_gc_collect_cycles%return=sum(arg0)"


def check_gc(script):
    """-P phpsample's GC pane without probes: gc_collect_cycles() called
    R times (round i leaves i + 1 cycles to collect) timed R times, and
    what it freed summed, against PHP's own gc_status()."""
    t = Target([PHP, "-n", script])
    tr = Trace(["-p", str(t.pid), "-i", "60", "-P", "phpsample"])
    runs0, freed0 = map(int, t.send("gc 0").split())
    runs1, freed1 = map(int, t.send("gc %d" % GC_ROUNDS).split())
    time.sleep(0.2)
    tr.finish()
    t.stop()
    fin = tr.final()
    pause, freed = agg_of(fin, GC_PAUSE), agg_of(fin, GC_FREED)
    timed = sum(r["count"] for r in pause["rows"]) if pause else None
    summed = sum(r["sum_total"] for r in freed["rows"]) if freed else None
    tap.eq((timed, summed), (runs1 - runs0, freed1 - freed0),
           "-P phpsample: the collector's runs timed and what they freed "
           "summed, as gc_status() counts them", (pause, freed))
    tap.eq(freed1 - freed0, GC_ROUNDS * (GC_ROUNDS + 1) // 2,
           "gc_status() itself: every cycle left was collected")


SHORT = """\
<?php
function caller($n)
{
    for ($i = 0; $i < $n; $i++)
        getmypid();
}
caller(50);
getmypid();
"""


def check_launched(tmp):
    """A command probetop launches, which ends at once: named all the same
    (at first sight, in the kernel), exactly; PHP's own getpid() before
    any PHP code runs is dropped as without a PHP frame."""
    short = os.path.join(tmp, "short.php")
    with open(short, "w") as f:
        f.write(SHORT)
    plain = "fn:libc.so.6:getpid"
    tr = Trace(["-i", "60", "--budget", "off",
                "-e", FRAME, "-e", STACK, "-e", plain, "--",
                PHP, "-n", short])
    tr.finish(sig=None)
    fin = tr.final()
    f, s = rows(fin, FRAME), rows(fin, STACK)
    total = sum(rows(fin, plain).values())
    tap.eq((f, s), ({("caller", short, 2): 50, ("{main}", short, 1): 1},
                    {("{main};caller;getmypid",): 50,
                     ("{main};getmypid",): 1}),
           "a launched php that exits at once: its frames named, exactly",
           tr.stderr)
    drops = [agg_of(fin, k)["drops_by"]["php"] for k in (FRAME, STACK)]
    tap.ok(drops == [total - 51] * 2 and total > 51,
           "the %d getpid() PHP makes before running PHP code: dropped as "
           "without a frame to read" % (total - 51), (drops, total))
    text = Trace(["-i", "60", "--budget", "off",
                  "-e", FRAME, "--", PHP, "-n", short],
                 json_out=False)
    text.finish(sig=None)
    tap.ok("(%d dropped: %d without a PHP frame to read)"
           % (total - 51, total - 51) in text.stdout,
           "said so in the text output", text.stdout)


def check_unknown(script, tmp):
    """A PHP of a version without a table (8.5's module API): said in one
    line, and the rest goes on."""
    other = os.path.join(tmp, "php-other")
    shutil.copy(PHP, other)
    with open(other, "r+b") as f:
        data = f.read()
        at = data.find(b"API20220829,NTS\0")
        f.seek(at)
        f.write(b"API20250925,NTS\0")
    t = Target([other, "-n", script])
    tr = Trace(["-p", str(t.pid), "-i", "60", "--budget", "off",
                "-e", FRAME, "-e",
                "fn:libc.so.6:getpid"])
    t.send("calls 9")
    time.sleep(0.2)
    tr.finish()
    t.stop()
    said = [l for l in tr.stderr.splitlines() if "runs PHP" in l]
    tap.ok(len(said) == 1 and "runs PHP 8.5 (" in said[0] and
           "read PHP 8.0 to 8.4, non-ZTS" in said[0],
           "PHP 8.5: one line naming it and what is read", tr.stderr)
    tap.eq(sum(rows(tr.final(), "fn:libc.so.6:getpid").values()), 9,
           "PHP 8.5: a spec without PHP keys still exact")


if not os.path.exists(PHP):
    tap.skip_all(PHP + " not installed (php8.2-cli, scripts/setup)")
with tempfile.TemporaryDirectory() as tmp:
    deep = os.path.join(tmp, "a-directory-name-long-enough-to-be-cut-" * 2)
    os.makedirs(deep)
    script = os.path.join(deep, "work.php")
    with open(script, "w") as f:
        f.write(WORKLOAD)
    check_exact(script)
    check_probeset(script)
    check_gc(script)
    check_launched(tmp)
    check_unknown(script, tmp)
tap.done()
